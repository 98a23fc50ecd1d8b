/**
 * One vocabulary for why a pull request changed state. Failure and cancellation reasons are the
 * subsets that end a PR; the rest explain progress and restarts.
 */
/** DEPENDS_ON_FAILED: a PR stacked on one that failed (issue 28); the PRs below it are not touched. */
export const FAILURE_REASONS = [
  "TESTS_FAILED",
  "TIMED_OUT",
  "MERGE_CONFLICT",
  "BUILD_FAILED",
  "DEPENDS_ON_FAILED",
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export const CANCELLATION_REASONS = ["CANCELLED_BY_USER", "PR_CLOSED"] as const;
export type CancellationReason = (typeof CANCELLATION_REASONS)[number];

/** Why testing restarted, or why a PR left its place in the queue. */
export const RESTART_REASONS = [
  "RESTART_REQUESTED",
  "ITEM_AHEAD_REMOVED",
  "TARGET_BRANCH_MOVED",
  "URGENT_PR_AHEAD",
  "PREEMPTED_BY_URGENT",
  "BATCH_REFORMED",
  "BATCH_MEMBER_REMOVED",
  "HEAD_CHANGED",
  "TARGETS_CHANGED",
  "BASE_BRANCH_CHANGED",
  // A failed batch tested once more where it stands: a later run built on it passed, so its failure
  // was most likely a flake.
  "FAILURE_NOT_CONFIRMED",
  // A PR a bisection already cleared once goes back into line untested when its next batch fails.
  "CLEARED_BY_EARLIER_BISECTION",
  // A bisection sends a PR back into line untested: a part of the batch it was not in failed the same tests.
  "FAILURE_EXPLAINED_ELSEWHERE",
  // The run failed only on tests known to be flaky (issue 26): the same run runs once more in place.
  "KNOWN_FLAKY_TEST_RETRIED",
  // A failed test fails on the target itself: the PRs are not blamed and wait for the target (target-hold.ts).
  "TARGET_BROKEN",
] as const;
export type RestartReason = (typeof RESTART_REASONS)[number];

export type ProgressReason =
  | "SUBMITTED"
  | "AWAITING_FACTS"
  | "AWAITING_IMPACTED_TARGETS"
  | "BASE_BRANCH_MISMATCH"
  | "AWAITING_STACK_BELOW"
  | "READY"
  | "TEST_RUN_STARTED"
  | "TEST_RUN_PASSED"
  | "TEST_RUN_FAILED"
  | "BISECTION_PASSED"
  | "OPTIMISTIC_MERGE"
  | "MERGING"
  | "MERGED";

export type TransitionReason = FailureReason | CancellationReason | RestartReason | ProgressReason;
