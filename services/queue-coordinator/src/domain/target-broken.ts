import type { FailedTest } from "./test-knowledge.js";

/**
 * A test failing on the target itself (issue 26): every run would fail on it whatever its PRs, so the queue holds
 * new runs on the target rather than blame them. Runs in flight go on and merges land; the hold ends when a run
 * passes (it passed that test too), when the target moves (a fix may have landed: the next run tells, and holds
 * again if not), when an operator resumes the queue, or when holdOnBrokenTarget is turned off.
 */
export interface TargetBroken {
  test: FailedTest;
  /** Since when the test fails on the target (ms), as far as anyone knows. */
  since: number;
  /** When the queue started holding (ms). */
  at: number;
  /** The queue run whose failure showed it. */
  runId: string;
}

export type TargetRecovery =
  "RUN_PASSED" | "TARGET_MOVED" | "RESUMED" | "SETTING_OFF" | "TEST_PASSED_ON_TARGET";
