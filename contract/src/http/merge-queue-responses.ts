import { z } from "zod";
import { BATCH_STATUSES } from "../batch-status.js";
import { PRIORITY_RANGE } from "../priority.js";
import { PR_STATES } from "../pull-request-state.js";
import { QUEUE_STATES } from "../queue-state.js";
import {
  BATCHING_MODES,
  BISECTION_MODES,
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_MODES,
} from "../queue-settings.js";
import { RUN_KINDS } from "../run-kind.js";
import { TEST_RUN_STATUSES } from "../run-outcome.js";

/**
 * The merge-queue answers of the HTTP API (service-spec.md plus compat-notes.md): the gateway's OpenAPI document
 * is made from these schemas, and the CLI and the web page read the types inferred from them.
 */

const isoDateTime = z.iso.datetime({ offset: true });

/** compat-notes "/getSubmittedPullRequest" readiness: the code host's word for whether the PR can merge. */
export const GITHUB_MERGEABILITIES = ["MERGEABLE", "NOT_MERGEABLE", "IN_PROGRESS", "UNSPECIFIED"] as const;
export type GitHubMergeability = (typeof GITHUB_MERGEABILITIES)[number];

export const setPullRequestPriorityResponse = z.object({
  priorityValue: z.int().min(PRIORITY_RANGE.min).max(PRIORITY_RANGE.max),
  /** "urgent", "high", "medium" or "low"; empty when the value has no name. */
  priorityName: z.string(),
});

/** Ours (issue 28): the stack a PR is part of; absent when it is in none. */
export const pullRequestStack = z
  .object({
    below: z.array(z.int()).describe("The PRs it sits on, bottom first (the last one is directly under it)"),
    above: z.array(z.int()).describe("The PRs in the queue that sit on it, nearest first"),
  })
  .describe(
    "The stack the PR is part of: a PR whose base branch is another open PR's head branch sits on it",
  );
export type PullRequestStack = z.infer<typeof pullRequestStack>;

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
  stack: pullRequestStack.optional(),
});

const queueFields = {
  state: z.enum(QUEUE_STATES),
  branch: z.string(),
  concurrency: z.int(),
  testingTimeoutMinutes: z.int(),
  mode: z.enum(QUEUE_MODES),
  canOptimisticallyMerge: z.boolean(),
  pendingFailureDepth: z.int(),
  batch: z.boolean(),
  batchingMaxWaitTimeMinutes: z.int(),
  batchingMinSize: z.int(),
  batchingMode: z.enum(BATCHING_MODES),
  bisectionMode: z.enum(BISECTION_MODES),
  bisectionConcurrency: z.int(),
  requiredStatuses: z.array(z.string()),
  mergeMethod: z.enum(MERGE_METHODS),
  commentsEnabled: z.boolean(),
  commandsEnabled: z.boolean(),
  statusCheckEnabled: z.boolean(),
  directMergeMode: z.enum(DIRECT_MERGE_MODES),
  optimizationMode: z.enum(OPTIMIZATION_MODES),
  /** Ours (issue 26): what the queue does with a failed run's tests; null follows the repository's quarantining. */
  ignoreQuarantinedTests: z.boolean().nullable(),
  retryKnownFlakyTests: z.boolean().nullable(),
  holdOnBrokenTarget: z.boolean().nullable(),
  /** Ours (issue 28): the most PRs one stack may hold; 0 refuses stacked PRs. */
  maxStackSize: z.int(),
};

/**
 * Ours, beyond compat-notes: a test run in progress, so that a CI can tell a main run from a bisection run and
 * build exactly the pushed commit (`testBranchSha` is empty until the batch-runner has pushed the branch, and
 * `testBranch` is empty for queues without a repository connection).
 */
export const testRunInFlight = z.object({
  id: z.string(),
  kind: z.enum(RUN_KINDS),
  prNumbers: z.array(z.int()),
  testBranch: z.string(),
  testBranchSha: z.string(),
  startedAt: isoDateTime,
});

export const queueResponse = z.object({
  ...queueFields,
  /** Ours: the median duration of the queue's last 20 finished main runs; absent before the first. */
  medianRunSeconds: z.number().min(0).optional(),
  /** Ours (issue 26): set while new runs wait because a test fails on the target itself. */
  targetBroken: z
    .object({ testId: z.string(), testName: z.string(), since: isoDateTime, reason: z.string() })
    .optional(),
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
    gitHubMergeability: z.enum(GITHUB_MERGEABILITIES),
    /** Ours, beyond compat-notes: while NOT_READY, what the PR waits for and how to provide it, in one sentence. */
    reason: z.string().optional(),
  }),
  priorityValue: z.int(),
  priorityName: z.string(),
  usedDefaultPriorityName: z.boolean(),
  skipTheLine: z.boolean(),
  isCurrentlySubmittedToQueue: z.boolean(),
  ...prFacts,
  stack: pullRequestStack.optional(),
  /** Ours, beyond compat-notes: why a FAILED or CANCELLED PR ended (TESTS_FAILED, TIMED_OUT, MERGE_CONFLICT, BUILD_FAILED, DEPENDS_ON_FAILED; CANCELLED_BY_USER, PR_CLOSED). */
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
      /** Ours (issue 26): what the reason alone does not say ("passed; failures ignored: quarantined tests X"). */
      detail: z.string().optional(),
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

/** Ours, beyond the spec: a queue in the list of the organisation's queues (POST /listQueues). */
export const queueSummary = z.object({
  repo: z.object({ host: z.string(), owner: z.string(), name: z.string() }),
  branch: z.string(),
  state: z.enum(QUEUE_STATES),
  mode: z.enum(QUEUE_MODES),
  concurrency: z.int(),
  batch: z.boolean(),
  /** PRs waiting or under test, not counting those awaiting mergeability (NOT_READY). */
  depth: z.int(),
  notReady: z.int(),
  testing: z.int(),
  testRunsInFlight: z.int(),
  /** PRs of the queue that merged, failed or were cancelled in the last hour. */
  lastHour: z.object({ merged: z.int(), failed: z.int(), cancelled: z.int() }),
});
export const listQueuesResponse = z.object({ queues: z.array(queueSummary) });
