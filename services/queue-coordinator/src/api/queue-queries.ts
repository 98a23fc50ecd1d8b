import { InvalidArgumentError, MainlineError, NotFoundError } from "@mainline/kit/errors/index";
import { grpcStatusOf, type AsyncImplementation } from "@mainline/kit/grpc/index";
import {
  HostPullRequestState,
  RunnerKind,
  TestRunStatus,
  type QueueCoordinatorServer,
  type SubmittedPullRequestLookup,
} from "@mainline/proto/queue";
import { queueAddress, queueKey, repoKey, repoRef, type QueueAddress } from "../app/queue-key.js";
import type { QueueDocument } from "../store/queue-repository.js";
import type { ApiDeps } from "./api-deps.js";
import { prNumber, requiredOrg } from "./command-parser.js";
import { listFinishedPullRequests } from "./finished-pull-requests.js";
import { FinishedBuckets } from "./finished-buckets.js";
import { queueInsights } from "./queue-insights.js";
import { queueToProto } from "./proto-mapping.js";
import { recentOutcomes } from "./recent-outcomes.js";
import { lookupSubmitted } from "./submitted-pull-request-lookup.js";
import { testRunOutput } from "./test-run-output.js";
import { stackTargetBranch } from "./stack-resolution.js";

export type QueueQueries = Pick<
  AsyncImplementation<QueueCoordinatorServer>,
  | "getQueue"
  | "listQueues"
  | "listFinishedPullRequests"
  | "getQueueInsights"
  | "getSubmittedPullRequest"
  | "getSubmittedPullRequests"
  | "getMergeQueueTestingDetails"
  | "getPullRequestFacts"
  | "getRepositoryConnection"
  | "getTestRunOutput"
>;

const HOUR_MS = 60 * 60_000;

/** Enough for every poller a gateway replica coalesces in one turn of its event loop. */
const MAX_LOOKUPS_PER_CALL = 1000;

/** The read side of the QueueCoordinator service: answers from the stored state, changes nothing. */
export function queueQueries(deps: ApiDeps): QueueQueries {
  const { queues, records, runs, connections } = deps;
  const readFresh = (address: QueueAddress) => queues.get(address, true);
  const finished = new FinishedBuckets();

  return {
    getTestRunOutput: (req) => testRunOutput(deps, req),
    listFinishedPullRequests: (req) => listFinishedPullRequests(deps, req),
    getQueueInsights: (req) => queueInsights({ ...deps, finished }, req),

    async getQueue(req) {
      const address = queueAddress(req.queue);
      const queue = queueToProto(await queues.get(address, true));
      for (const run of queue.activeTestRuns) {
        const record = await runs.get(queueKey(address), run.testRunId);
        run.testBranch = record?.testBranch ?? "";
        run.testBranchSha = record?.testBranchSha ?? "";
      }
      return { queue };
    },

    async listQueues(req) {
      if (req.allOrganizations) {
        if (req.org || req.repo)
          throw new InvalidArgumentError("org", "must be empty when allOrganizations is set");
        return { queues: (await queues.all()).map((d) => queueToProto(d)) };
      }
      const docs = await queues.list(requiredOrg(req.org), req.repo);
      // The queue list shows what each queue got done lately: the finished records of the last hour.
      const since = deps.clock().getTime() - HOUR_MS;
      return {
        queues: await Promise.all(
          docs.map(async (d) => ({
            ...queueToProto(d),
            lastHour: recentOutcomes(await records.finishedSince(d._id, since)),
          })),
        ),
      };
    },

    async getSubmittedPullRequest(req) {
      return { pullRequest: await lookupSubmitted(deps, req, readFresh) };
    },

    async getSubmittedPullRequests(req) {
      if (req.lookups.length > MAX_LOOKUPS_PER_CALL)
        throw new InvalidArgumentError("lookups", `must hold at most ${MAX_LOOKUPS_PER_CALL} lookups`);
      // Each queue is read once for the whole batch: the lookups see one state of it, as one call would.
      const reads = new Map<string, Promise<QueueDocument>>();
      const readOnce = (address: QueueAddress) => {
        const key = queueKey(address);
        let read = reads.get(key);
        if (!read) {
          read = readFresh(address);
          reads.set(key, read);
        }
        return read;
      };
      const results: SubmittedPullRequestLookup[] = [];
      for (const lookup of req.lookups) {
        try {
          results.push({
            result: { $case: "pullRequest", value: await lookupSubmitted(deps, lookup, readOnce) },
          });
        } catch (error) {
          // Only a refusal belongs to its lookup; anything else is a fault of the whole call.
          if (!(error instanceof MainlineError)) throw error;
          results.push({
            result: {
              $case: "error",
              value: { code: grpcStatusOf(error.code), message: error.message },
            },
          });
        }
      }
      return { results };
    },

    async getMergeQueueTestingDetails(req) {
      const address = queueAddress(req.queue);
      if (!req.testRunId) throw new InvalidArgumentError("testRunId", "must not be empty");
      const record = await runs.get(queueKey(address), req.testRunId);
      if (!record)
        throw new NotFoundError(
          `test run ${req.testRunId} does not exist in the queue for ${address.targetBranch}`,
        );
      const base = `https://${address.repo.host}/${address.repo.owner}/${address.repo.name}/pull/`;
      return {
        details: {
          requiredStatuses: record.requiredStatuses,
          testBranch: record.testBranch,
          testBranchSha: record.testBranchSha,
          createdAt: new Date(record.createdAt),
          status: TestRunStatus[record.status],
          statusChecks: record.statusChecks,
          testedPullRequests: record.prs.map((n) => ({
            prNumber: n,
            prUrl: `${base}${n}`,
            title: record.titles[String(n)] ?? "",
          })),
          impactedTargets: record.impactedTargets,
          impactedTargetsForTestedPrs: record.impactedTargetsForTestedPrs,
          dependentPrs: record.dependentPrs,
        },
      };
    },

    async getPullRequestFacts(req) {
      const org = requiredOrg(req.org);
      const repo = repoRef(req.repo);
      const number = prNumber(req.number);
      const known = await records.factsOf(org, repoKey(repo), number);
      // Impacted targets alone (uploaded before any pull_request event) say nothing about the branches.
      if (!known?.facts)
        throw new NotFoundError(
          `no pull_request event has been recorded for pull request ${number} of ${repoKey(repo)}`,
        );
      const f = known.facts;
      const stackTarget = await stackTargetBranch(records, { org, repoKey: repoKey(repo) }, number, f);
      return {
        headBranch: f.headBranch,
        headSha: f.headSha,
        title: f.title,
        author: f.author,
        baseBranch: f.baseBranch,
        state: f.open ? HostPullRequestState.OPEN : HostPullRequestState.CLOSED,
        merged: known.merged ?? false,
        ...(stackTarget === undefined ? {} : { stackTargetBranch: stackTarget }),
      };
    },

    async getRepositoryConnection(req) {
      const org = requiredOrg(req.org);
      const repo = repoRef(req.repo);
      const c = await connections.get(org, repoKey(repo));
      if (!c) throw new NotFoundError(`repository ${repoKey(repo)} has no connection settings`);
      return {
        connection: {
          repo,
          ...c,
          runner: { ...c.runner, env: c.runner.env ?? {}, kind: RunnerKind[c.runner.kind] },
        },
      };
    },
  };
}
