/** Per-repository thresholds and windows of the status rules. */
export interface StatusSettings {
  /** Share of failed target-branch runs (0..1] in the rate window that makes a test flaky. */
  failureRateThreshold: number;
  /** Fewest target-branch runs in the rate window before the failure rate is trusted. */
  minTargetBranchRuns: number;
  /** How far back the failure rate looks. */
  rateWindowHours: number;
  /** How many recent target-branch runs the evidence keeps (bounds its size). */
  targetBranchSampleSize: number;
  /** Consecutive failed runs (target branch, or merge queue) that make a test broken. */
  brokenAfterConsecutiveFailures: number;
  /** How long without a flaky signal before a flaky test is healthy again. */
  quietWindowHours: number;
  /** How many recent commits the evidence remembers, to see a failure and a pass on one commit. */
  recentCommitsTracked: number;
}

export const DEFAULT_STATUS_SETTINGS: Readonly<StatusSettings> = Object.freeze({
  failureRateThreshold: 0.2,
  minTargetBranchRuns: 10,
  rateWindowHours: 7 * 24,
  targetBranchSampleSize: 50,
  brokenAfterConsecutiveFailures: 5,
  quietWindowHours: 7 * 24,
  recentCommitsTracked: 20,
});

/** The runs the evidence keeps when a repository does not say: the default, or enough for both rules to fire. */
export function sampleSizeFor(
  settings: Pick<StatusSettings, "minTargetBranchRuns" | "brokenAfterConsecutiveFailures">,
): number {
  return Math.max(
    DEFAULT_STATUS_SETTINGS.targetBranchSampleSize,
    settings.minTargetBranchRuns,
    settings.brokenAfterConsecutiveFailures,
  );
}
