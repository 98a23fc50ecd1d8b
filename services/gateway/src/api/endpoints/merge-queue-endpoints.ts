import { z } from "zod";
import { callUnary, type UnaryMethod } from "@mainline/kit/grpc/index";
import {
  BatchingMode,
  BisectionMode,
  DirectMergeMode,
  MergeMethod,
  OptimizationMode,
  QueueMode,
  QueueState,
  type CancelPullRequestRequest,
  type CancelPullRequestResponse,
} from "@mainline/proto/queue";
import { endpoint, type Endpoint } from "../endpoint.js";
import { linkResolver } from "../public-links.js";
import {
  enumValue,
  queueRef,
  queueSettingsToJson,
  queueToJson,
  submittedToJson,
  testAwareSwitchesOf,
  testingDetailsToJson,
} from "../queue-mapping.js";
import { emptyObject } from "../schemas/common.js";
import { priorityOf } from "../../upstream/coordinator-priority.js";
import {
  createQueueRequest,
  getSubmittedPullRequestRequest,
  prRequest,
  queueRequest,
  queueResponse,
  setImpactedTargetsRequest,
  submitPullRequestRequest,
  submittedPullRequestResponse,
  testingDetailsRequest,
  testingDetailsResponse,
  updatedQueueResponse,
  updateQueueRequest,
} from "../schemas/merge-queue.js";
import type { Upstreams } from "../../upstream/upstreams.js";
import type { MergeEstimates } from "../../upstream/merge-estimates.js";
import { queueEstimates } from "../../upstream/queue-estimates.js";
import { median } from "../../domain/merge-estimate.js";

const TAG = "Merge queue";
const empty = z.object({});

/**
 * A command on one PR of a queue (by number), recorded as requested by the calling token. Cancel and restart
 * take the same request fields, so either RPC fits the cancel signature.
 */
function prCommand(
  operationId: string,
  summary: string,
  rpc: UnaryMethod<CancelPullRequestRequest, CancelPullRequestResponse>,
): Endpoint {
  return endpoint({
    method: "post",
    path: `/${operationId}`,
    operationId,
    summary,
    tag: TAG,
    access: "org",
    input: prRequest,
    inputIn: "body",
    output: empty,
    async handle(input, { principal }) {
      await callUnary(rpc, {
        queue: queueRef(principal.org, input.repo, input.targetBranch),
        prNumber: input.pr.number,
        requestedBy: `token:${principal.tokenId}`,
      });
      return {};
    },
  });
}

/** The merge-queue endpoints of service-spec.md (all POST with JSON bodies; metrics live elsewhere). */
/**
 * `publicUrl`: where users reach the gateway (MAINLINE_PUBLIC_URL), for links to the pages it serves;
 * `estimates`: merge-time estimates added to getSubmittedPullRequest.
 */
export function mergeQueueEndpoints(
  up: Upstreams,
  { publicUrl, estimates }: { publicUrl?: string; estimates?: MergeEstimates } = {},
): Endpoint[] {
  const q = up.queue;
  return [
    endpoint({
      method: "post",
      path: "/submitPullRequest",
      operationId: "submitPullRequest",
      summary: "Submit a PR to the queue for testing and merging",
      tag: TAG,
      access: "org",
      input: submitPullRequestRequest,
      inputIn: "body",
      output: empty,
      async handle(input, { principal }) {
        const priority = priorityOf(input.priority);
        await callUnary(q.submitPullRequest.bind(q), {
          queue: queueRef(principal.org, input.repo, input.targetBranch),
          prNumber: input.pr.number,
          noBatch: input.noBatch ?? false,
          ...(input.includeStack === undefined ? {} : { includeStack: input.includeStack }),
          requestedBy: `token:${principal.tokenId}`,
          ...(priority ? { priority } : {}),
        });
        return {};
      },
    }),
    prCommand("cancelPullRequest", "Remove a PR from the queue", q.cancelPullRequest.bind(q)),
    prCommand(
      "restartTestsOnPullRequest",
      "Re-run tests on a PR currently in the queue",
      q.restartTestsOnPullRequest.bind(q),
    ),
    endpoint({
      method: "post",
      path: "/getSubmittedPullRequest",
      operationId: "getSubmittedPullRequest",
      summary: "Check the status of a submitted PR (by pr.number or pr.branch)",
      tag: TAG,
      access: "org",
      input: getSubmittedPullRequestRequest,
      inputIn: "body",
      output: submittedPullRequestResponse,
      async handle(input, { principal, ctx }) {
        const pr =
          input.pr.number !== undefined
            ? { $case: "number" as const, value: input.pr.number }
            : { $case: "branch" as const, value: input.pr.branch ?? "" };
        const queue = queueRef(principal.org, input.repo, input.targetBranch);
        const pullRequest = await up.submittedPullRequests.get({ queue, pr });
        const estimate =
          estimates && pullRequest.isCurrentlySubmittedToQueue
            ? await estimates.of(queue, pullRequest.prNumber)
            : undefined;
        return {
          ...submittedToJson(pullRequest, input.targetBranch, linkResolver(ctx, publicUrl)),
          ...estimate,
        };
      },
    }),
    endpoint({
      method: "post",
      path: "/setImpactedTargets",
      operationId: "setImpactedTargets",
      summary: 'Set the impacted targets of a PR (a list, or "ALL")',
      tag: TAG,
      access: "org",
      input: setImpactedTargetsRequest,
      inputIn: "body",
      output: empty,
      async handle(input, { principal }) {
        await callUnary(q.setImpactedTargets.bind(q), {
          queue: queueRef(principal.org, input.repo, input.targetBranch),
          prNumber: input.pr.number,
          prSha: input.pr.sha.toLowerCase(),
          impactedTargets:
            input.impactedTargets === "ALL"
              ? { all: true, targets: [] }
              : { all: false, targets: input.impactedTargets },
        });
        return {};
      },
    }),
    endpoint({
      method: "post",
      path: "/getMergeQueueTestingDetails",
      operationId: "getMergeQueueTestingDetails",
      summary: "Get details about an in-progress or finished test run of the queue",
      tag: TAG,
      access: "org",
      input: testingDetailsRequest,
      inputIn: "body",
      output: testingDetailsResponse,
      async handle(input, { principal, ctx }) {
        const response = await callUnary(q.getMergeQueueTestingDetails.bind(q), {
          queue: queueRef(principal.org, input.repo, input.targetBranch),
          testRunId: input.testRunId,
        });
        if (!response.details) throw new Error("queue-coordinator answered without details");
        return testingDetailsToJson(response.details, linkResolver(ctx, publicUrl));
      },
    }),
    endpoint({
      method: "post",
      path: "/createQueue",
      operationId: "createQueue",
      summary: "Create a queue for a branch",
      tag: TAG,
      access: "org",
      input: createQueueRequest,
      inputIn: "body",
      output: empty,
      async handle(input, { principal }) {
        const ref = queueRef(principal.org, input.repo, input.targetBranch);
        const { mode, concurrency, repo: _repo, targetBranch: _branch, ...rest } = input;
        await callUnary(q.createQueue.bind(q), {
          queue: ref,
          ...(mode ? { mode: enumValue(QueueMode, mode) } : {}),
          ...(concurrency !== undefined ? { concurrency } : {}),
        });
        // Settings beyond mode and concurrency are applied right after creation, so createQueue accepts every
        // setting updateQueue does.
        if (Object.values(rest).some((v) => v !== undefined)) {
          await callUnary(q.updateQueue.bind(q), { queue: ref, ...settingsToProto(rest) });
        }
        return {};
      },
    }),
    endpoint({
      method: "post",
      path: "/deleteQueue",
      operationId: "deleteQueue",
      summary: "Delete an empty queue",
      tag: TAG,
      access: "org",
      input: queueRequest,
      inputIn: "body",
      output: empty,
      async handle(input, { principal }) {
        await callUnary(q.deleteQueue.bind(q), {
          queue: queueRef(principal.org, input.repo, input.targetBranch),
        });
        return {};
      },
    }),
    endpoint({
      method: "post",
      path: "/getQueue",
      operationId: "getQueue",
      summary: "Get queue state, configuration and enqueued PRs",
      tag: TAG,
      access: "org",
      input: queueRequest,
      inputIn: "body",
      output: queueResponse,
      async handle(input, { principal }) {
        const response = await callUnary(q.getQueue.bind(q), {
          queue: queueRef(principal.org, input.repo, input.targetBranch),
        });
        if (!response.queue) throw new Error("queue-coordinator answered without a queue");
        const json = queueToJson(response.queue);
        const estimates = queueEstimates(response.queue, Date.now());
        const runMs = median(response.queue.recentRunDurationsMs);
        return {
          ...json,
          ...(runMs !== undefined ? { medianRunSeconds: Math.round(runMs / 100) / 10 } : {}),
          enqueuedPullRequests: json.enqueuedPullRequests.map((pr) => {
            const at = estimates.get(pr.prNumber)?.estimatedMergeAt;
            return at ? { ...pr, estimatedMergeAt: at } : pr;
          }),
        };
      },
    }),
    endpoint({
      method: "post",
      path: "/updateQueue",
      operationId: "updateQueue",
      summary: "Update queue configuration (state, mode, concurrency, batching, ...)",
      tag: TAG,
      access: "org",
      input: updateQueueRequest,
      inputIn: "body",
      output: updatedQueueResponse,
      async handle(input, { principal, signal }) {
        const { repo, targetBranch, state, ...settings } = input;
        const response = await callUnary(
          q.updateQueue.bind(q),
          {
            queue: queueRef(principal.org, repo, targetBranch),
            ...(state ? { state: enumValue(QueueState, state) } : {}),
            ...settingsToProto(settings),
          },
          { signal },
        );
        if (!response.queue) throw new Error("queue-coordinator answered without a queue");
        return queueSettingsToJson(response.queue);
      },
    }),
  ];
}

type Settings = Omit<z.infer<typeof updateQueueRequest>, "repo" | "targetBranch" | "state">;

function settingsToProto(s: Partial<Settings>) {
  const {
    mode,
    mergeMethod,
    directMergeMode,
    optimizationMode,
    batchingMode,
    bisectionMode,
    requiredStatuses,
    ...others
  } = s;
  const { ignoreQuarantinedTests, retryKnownFlakyTests, holdOnBrokenTarget, ...plain } = others;
  const defined = Object.fromEntries(Object.entries(plain).filter(([, v]) => v !== undefined));
  const switches = { ignoreQuarantinedTests, retryKnownFlakyTests, holdOnBrokenTarget };
  return {
    ...defined,
    ...testAwareSwitchesOf(switches),
    ...(mode ? { mode: enumValue(QueueMode, mode) } : {}),
    ...(mergeMethod ? { mergeMethod: enumValue(MergeMethod, mergeMethod) } : {}),
    ...(directMergeMode ? { directMergeMode: enumValue(DirectMergeMode, directMergeMode) } : {}),
    ...(optimizationMode ? { optimizationMode: enumValue(OptimizationMode, optimizationMode) } : {}),
    ...(batchingMode ? { batchingMode: enumValue(BatchingMode, batchingMode) } : {}),
    ...(bisectionMode ? { bisectionMode: enumValue(BisectionMode, bisectionMode) } : {}),
    ...(requiredStatuses ? { requiredStatuses: { values: requiredStatuses } } : {}),
  };
}

export { emptyObject };
