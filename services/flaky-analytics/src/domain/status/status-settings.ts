import { InvalidArgumentError } from "@mainline/kit/errors/index";

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

const MAX_SAMPLE = 500;

/**
 * Fills defaults and validates a repository's settings as they arrive from an API call or the
 * store. Throws InvalidArgumentError naming the setting and the rule it breaks.
 */
export function resolveStatusSettings(input: Readonly<Record<string, unknown>> = {}): StatusSettings {
  for (const key of Object.keys(input)) {
    if (!(key in DEFAULT_STATUS_SETTINGS))
      throw new InvalidArgumentError(key, "is not a known status setting");
  }
  const pick = <K extends keyof StatusSettings>(key: K): unknown =>
    input[key] ?? DEFAULT_STATUS_SETTINGS[key];

  const failureRateThreshold = pick("failureRateThreshold");
  if (typeof failureRateThreshold !== "number" || !(failureRateThreshold > 0 && failureRateThreshold <= 1)) {
    throw new InvalidArgumentError("failureRateThreshold", "must be a number greater than 0 and at most 1");
  }
  const minTargetBranchRuns = integerIn("minTargetBranchRuns", pick("minTargetBranchRuns"), 1, MAX_SAMPLE);
  const brokenAfterConsecutiveFailures = integerIn(
    "brokenAfterConsecutiveFailures",
    pick("brokenAfterConsecutiveFailures"),
    2,
    100,
  );
  const targetBranchSampleSize = integerIn(
    "targetBranchSampleSize",
    pick("targetBranchSampleSize"),
    1,
    MAX_SAMPLE,
  );
  // The sample must hold enough runs for both rules to ever fire.
  const needed = Math.max(minTargetBranchRuns, brokenAfterConsecutiveFailures);
  if (targetBranchSampleSize < needed) {
    throw new InvalidArgumentError(
      "targetBranchSampleSize",
      `must be at least minTargetBranchRuns and brokenAfterConsecutiveFailures (${needed})`,
    );
  }
  return {
    failureRateThreshold,
    minTargetBranchRuns,
    rateWindowHours: integerIn("rateWindowHours", pick("rateWindowHours"), 1, 30 * 24),
    targetBranchSampleSize,
    brokenAfterConsecutiveFailures,
    quietWindowHours: integerIn("quietWindowHours", pick("quietWindowHours"), 1, 90 * 24),
    recentCommitsTracked: integerIn("recentCommitsTracked", pick("recentCommitsTracked"), 1, 200),
  };
}

function integerIn(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(field, `must be an integer from ${min} to ${max}`);
  }
  return value;
}
