import { z } from "zod";
import {
  BATCH_STATUSES,
  BATCHING_MODES,
  DIRECT_MERGE_MODES,
  MAX_REQUIRED_STATUSES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
  PR_STATES,
  priorityInput,
  PRIORITY_RANGE,
  QUEUE_STATES,
  TEST_RUN_STATUSES,
} from "@mainline/contract";
import { isoDateTime, prNumber, repoSchema, targetBranch, upperEnum } from "./common.js";
import { boundedText, branchName, identifier, intInRange, LIMITS, RANGES } from "./limits.js";

/** Request and response shapes of the merge-queue endpoints: service-spec.md plus compat-notes.md. */

const queueKey = { repo: repoSchema, targetBranch };

export const priority = priorityInput;

export const submitPullRequestRequest = z.object({
  ...queueKey,
  pr: z.object({ number: prNumber }),
  priority: priority.optional(),
  noBatch: z.boolean({ error: "must be a boolean" }).optional(),
});

export const setPullRequestPriorityRequest = z.object({
  ...queueKey,
  pr: z.object({ number: prNumber }),
  priority,
});

export const setPullRequestPriorityResponse = z.object({
  priorityValue: z.int().min(PRIORITY_RANGE.min).max(PRIORITY_RANGE.max),
  /** "urgent", "high", "medium" or "low"; empty when the value has no name. */
  priorityName: z.string(),
});

export const prRequest = z.object({ ...queueKey, pr: z.object({ number: prNumber }) });

export const getSubmittedPullRequestRequest = z
  .object({
    ...queueKey,
    pr: z.object({
      number: prNumber.optional(),
      branch: branchName("the PR's head branch").optional(),
    }),
  })
  .superRefine((value, ctx) => {
    const hasNumber = value.pr.number !== undefined;
    const hasBranch = value.pr.branch !== undefined;
    if (hasNumber === hasBranch) {
      ctx.addIssue({
        code: "custom",
        path: ["pr"],
        message: hasNumber
          ? "give either pr.number or pr.branch, not both"
          : "one of pr.number or pr.branch is required",
      });
    }
  });

export const setImpactedTargetsRequest = z.object({
  ...queueKey,
  pr: z.object({
    number: prNumber,
    sha: z.string().regex(/^[0-9a-fA-F]{4,64}$/, "must be a commit sha (hex)"),
  }),
  impactedTargets: z.union(
    [
      z.literal("ALL"),
      z.array(
        z
          .string()
          .min(1, "must not contain empty target names")
          .max(LIMITS.label, `must hold target names of at most ${LIMITS.label} characters`),
      ),
    ],
    {
      error: 'must be a list of target names or the string "ALL"',
    },
  ),
});

export const testingDetailsRequest = z.object({
  ...queueKey,
  testRunId: identifier("a test run id, from getQueue"),
});

export { QUEUE_STATES };
export const MODES = QUEUE_MODES;
export { BATCHING_MODES, DIRECT_MERGE_MODES, MERGE_METHODS, OPTIMIZATION_MODES };

const setting = (name: keyof typeof RANGES) => {
  const [min, max] = RANGES[name];
  return intInRange(min, max, min === 0 ? "; 0 disables" : "").optional();
};
const statusName = boundedText("a required status check's name", LIMITS.label);

/** Every setting updateQueue accepts (compat-notes); all optional: an absent setting is left as it is. */
export const queueSettings = {
  mode: upperEnum(MODES).optional(),
  concurrency: setting("concurrency"),
  testingTimeoutMinutes: setting("testingTimeoutMinutes"),
  canOptimisticallyMerge: z.boolean().optional(),
  pendingFailureDepth: setting("pendingFailureDepth"),
  batch: z.boolean().optional(),
  batchingMaxWaitTimeMinutes: setting("batchingMaxWaitTimeMinutes"),
  batchingMinSize: setting("batchingMinSize"),
  batchingMode: upperEnum(BATCHING_MODES).optional(),
  bisectionConcurrency: setting("bisectionConcurrency"),
  requiredStatuses: z
    .array(statusName)
    .max(MAX_REQUIRED_STATUSES, `must hold at most ${MAX_REQUIRED_STATUSES} status names`)
    .optional(),
  mergeMethod: upperEnum(MERGE_METHODS).optional(),
  commentsEnabled: z.boolean().optional(),
  commandsEnabled: z.boolean().optional(),
  statusCheckEnabled: z.boolean().optional(),
  directMergeMode: upperEnum(DIRECT_MERGE_MODES).optional(),
  optimizationMode: upperEnum(OPTIMIZATION_MODES).optional(),
};

export const createQueueRequest = z.object({ ...queueKey, ...queueSettings });
export const queueRequest = z.object(queueKey);
export const updateQueueRequest = z.object({
  ...queueKey,
  ...queueSettings,
  state: z
    .preprocess(
      (v) => (typeof v === "string" ? v.toUpperCase() : v),
      z.enum(["RUNNING", "PAUSED", "DRAINING"], {
        error: "may be set only to RUNNING, PAUSED or DRAINING (SWITCHING_MODES is entered automatically)",
      }),
    )
    .optional(),
});

export { PR_STATES };

const prFacts = {
  prNumber: z.int(),
  prTitle: z.string(),
  prSha: z.string(),
  prBaseBranch: z.string(),
  prAuthor: z.string(),
};

export const enqueuedPullRequest = z.object({
  id: z.string(),
  state: z.enum(PR_STATES),
  stateChangedAt: isoDateTime,
  priorityValue: z.int(),
  priorityName: z.string(),
  noBatch: z.boolean(),
  ...prFacts,
  /** Ours, beyond compat-notes: the run testing this PR, for getMergeQueueTestingDetails and CI reports. */
  testRunId: z.string().optional(),
  /** Ours (getQueue only): best-case merge time, as getSubmittedPullRequest's; absent until a run finished. */
  estimatedMergeAt: isoDateTime.optional(),
  /** Ours (getQueue only): the batch the planner put the PR in, its status and its lane; absent until batched. */
  batchId: z.string().optional().describe("The batch the planner put the PR in; absent until it is in one"),
  batchStatus: z
    .enum(BATCH_STATUSES)
    .optional()
    .describe("The batch's status: FORMING and QUEUED batches are planned and wait for a test slot"),
  lane: z
    .string()
    .optional()
    .describe(
      "The lane the batch runs in: one in SINGLE mode; PARALLEL mode runs unrelated batches side by side",
    ),
});

const queueFields = {
  state: z.enum(QUEUE_STATES),
  branch: z.string(),
  concurrency: z.int(),
  testingTimeoutMinutes: z.int(),
  mode: z.enum(MODES),
  canOptimisticallyMerge: z.boolean(),
  pendingFailureDepth: z.int(),
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: z.int(),
  batchingMinSize: z.int(),
  batchingMode: z.enum(BATCHING_MODES),
  bisectionConcurrency: z.int(),
  requiredStatuses: z.array(z.string()),
  mergeMethod: z.enum(MERGE_METHODS),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  statusCheckEnabled: z.boolean(),
  directMergeMode: z.enum(DIRECT_MERGE_MODES),
  optimizationMode: z.enum(OPTIMIZATION_MODES),
};

/**
 * Ours, beyond compat-notes: a test run in progress, so that a CI can tell a main run from a bisection run and
 * build exactly the pushed commit (`testBranchSha` is empty until the batch-runner has pushed the branch, and
 * `testBranch` is empty for queues without a repository connection).
 */
export const testRunInFlight = z.object({
  id: z.string(),
  kind: z.enum(["main", "bisection"]),
  prNumbers: z.array(z.int()),
  testBranch: z.string(),
  testBranchSha: z.string(),
  startedAt: isoDateTime,
});

export const queueResponse = z.object({
  ...queueFields,
  /** Ours: the median duration of the queue's last 20 finished main runs; absent before the first. */
  medianRunSeconds: z.number().min(0).optional(),
  enqueuedPullRequests: z.array(enqueuedPullRequest),
  testRunsInFlight: z.array(testRunInFlight),
});
export const updatedQueueResponse = z.object(queueFields);

export const submittedPullRequestResponse = z.object({
  id: z.string(),
  state: z.enum(PR_STATES),
  stateChangedAt: isoDateTime,
  readiness: z.object({
    hasImpactedTargets: z.boolean(),
    requiresImpactedTargets: z.boolean(),
    doesBaseBranchMatch: z.boolean(),
    gitHubMergeability: z.enum(["MERGEABLE", "NOT_MERGEABLE", "IN_PROGRESS", "UNSPECIFIED"]),
    /** Ours, beyond compat-notes: while NOT_READY, what the PR waits for and how to provide it, in one sentence. */
    reason: z.string().optional(),
  }),
  priorityValue: z.int(),
  priorityName: z.string(),
  usedDefaultPriorityName: z.boolean(),
  skipTheLine: z.boolean(),
  isCurrentlySubmittedToQueue: z.boolean(),
  ...prFacts,
  /** Ours, beyond compat-notes: why a FAILED or CANCELLED PR ended (TESTS_FAILED, TIMED_OUT, MERGE_CONFLICT, BUILD_FAILED; CANCELLED_BY_USER, PR_CLOSED). */
  failureReason: z.string().optional(),
  cancellationReason: z.string().optional(),
  /** Ours: where to see why a FAILED PR failed (the failing run's output, or the external CI's page). */
  failureDetailsUrl: z.string().optional(),
  /** Ours: every state change of this submission, oldest first (from is null for the submission itself). */
  history: z.array(
    z.object({
      at: isoDateTime,
      from: z.enum(PR_STATES).nullable(),
      to: z.enum(PR_STATES),
      reason: z.string(),
      testRunId: z.string().optional(),
    }),
  ),
  /** Ours: every priority change of this submission, oldest first (values 0..255; by: who asked, when known). */
  priorityChanges: z.array(
    z.object({ at: isoDateTime, from: z.int(), to: z.int(), by: z.string().optional() }),
  ),
  /**
   * Ours: while the PR is in the queue, its place among the PRs that count (1 = next to merge), and a best-case
   * estimate of when it merges (from its place and the median duration of the queue's recent runs; absent until
   * the gateway has seen a run of this queue finish).
   */
  queuePosition: z.int().min(1).optional(),
  estimatedMergeAt: isoDateTime.optional(),
  medianRunSeconds: z.number().min(0).optional(),
});

export const testingDetailsResponse = z.object({
  requiredStatuses: z.array(z.string()),
  testBranch: z.string(),
  testBranchSha: z.string(),
  createdAt: isoDateTime,
  status: z.enum(TEST_RUN_STATUSES),
  statusChecks: z.array(z.object({ context: z.string(), url: z.string(), state: z.string() })),
  testedPullRequests: z.array(z.object({ prNumber: z.int(), prUrl: z.string(), title: z.string() })),
  impactedTargets: z.union([z.literal("ALL"), z.array(z.string())]),
  impactedTargetsForTestedPrs: z.union([z.literal("ALL"), z.array(z.string())]),
  dependentPrs: z.array(z.int()),
});

export const metricsQuery = z
  .object({
    repo: z
      .string()
      .max(LIMITS.owner + 1 + LIMITS.name, `must be at most ${LIMITS.owner + 1 + LIMITS.name} characters`)
      .regex(/^[^/\s]+(\/[^/\s]+)+$/, "must be in owner/name form")
      .optional(),
    repoHost: boundedText("repository host", LIMITS.host).optional(),
  })
  .superRefine((q, ctx) => {
    if (q.repo !== undefined && q.repoHost === undefined) {
      ctx.addIssue({ code: "custom", path: ["repoHost"], message: "is required when repo is given" });
    }
    if (q.repoHost !== undefined && q.repo === undefined) {
      ctx.addIssue({ code: "custom", path: ["repo"], message: "is required when repoHost is given" });
    }
  });
