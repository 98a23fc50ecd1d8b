import type { IntRange } from "./limits.js";

/** A queue's words (compat-notes "/getQueue"), written UPPERCASE and accepted in any case. */
export const QUEUE_MODES = ["SINGLE", "PARALLEL"] as const;
export type QueueMode = (typeof QUEUE_MODES)[number];

export const MERGE_METHODS = ["MERGE_COMMIT", "SQUASH", "REBASE"] as const;
export type MergeMethod = (typeof MERGE_METHODS)[number];

export const DIRECT_MERGE_MODES = ["OFF", "ALWAYS"] as const;
export type DirectMergeMode = (typeof DIRECT_MERGE_MODES)[number];

export const OPTIMIZATION_MODES = ["OFF", "BISECTION_SKIP_REDUNDANT_TESTS"] as const;
export type OptimizationMode = (typeof OPTIMIZATION_MODES)[number];

/** Ours, beyond compat-notes: FIXED fills batches to batchingMinSize; ADAPTIVE sizes each batch from the load. */
export const BATCHING_MODES = ["FIXED", "ADAPTIVE"] as const;
export type BatchingMode = (typeof BATCHING_MODES)[number];

/**
 * Ours: how a failed batch is searched once the line behind it has started without it. STACKED tests each half on
 * top of the halves ahead (fewer CI runs); ISOLATED tests each half on the target alone and fails a PR only on a
 * failed run of its own (fewer good PRs failed by flakes).
 */
export const BISECTION_MODES = ["STACKED", "ISOLATED"] as const;
export type BisectionMode = (typeof BISECTION_MODES)[number];

/** The integer settings of a queue and their ranges (0 disables the timeout and the pending-failure depth). */
export const QUEUE_SETTING_RANGES = {
  concurrency: [1, 1000],
  bisectionConcurrency: [1, 1000],
  testingTimeoutMinutes: [0, 10_080],
  pendingFailureDepth: [0, 1000],
  batchingMaxWaitTimeMinutes: [1, 10_080],
  batchingMinSize: [1, 1000],
  /** Issue 28: the most PRs one stack may hold; 0 refuses stacked PRs. */
  maxStackSize: [0, 32],
} as const satisfies Record<string, IntRange>;
export type QueueIntegerSetting = keyof typeof QUEUE_SETTING_RANGES;

/**
 * What the queue does with what flaky-analytics knows of a failed run's tests (issue 26), one switch per branch of
 * the decision (queue-coordinator domain/run-failure-decision.ts). null, the default, follows the repository's
 * quarantining setting: on when quarantining is on.
 * - ignoreQuarantinedTests: a run whose every failed test is quarantined counts as passed;
 * - retryKnownFlakyTests: a run whose only failures are known flaky tests runs once more in place;
 * - holdOnBrokenTarget: a test failing on the target itself holds new runs on the target, failing no PR.
 */
export const TEST_AWARE_QUEUE_SETTINGS = [
  "ignoreQuarantinedTests",
  "retryKnownFlakyTests",
  "holdOnBrokenTarget",
] as const;
export type TestAwareQueueSetting = (typeof TEST_AWARE_QUEUE_SETTINGS)[number];

/** Most required status names one queue may list. */
export const MAX_REQUIRED_STATUSES = 100;

/** GitHub's `merge_method` (the REST API's merge call) for each of ours. */
const GITHUB_MERGE_METHODS = {
  MERGE_COMMIT: "merge",
  SQUASH: "squash",
  REBASE: "rebase",
} as const satisfies Record<MergeMethod, string>;

export function githubMergeMethod(method: MergeMethod): (typeof GITHUB_MERGE_METHODS)[MergeMethod] {
  return GITHUB_MERGE_METHODS[method];
}
