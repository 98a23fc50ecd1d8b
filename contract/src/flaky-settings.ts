import type { IntRange } from "./limits.js";

/**
 * The integer settings of a repository's flaky-test rules, by their API names, and their ranges. The sample of
 * target-branch runs kept per test grows with min_runs and broken_after_consecutive_failures, so both are small.
 */
export const FLAKY_SETTING_RANGES = {
  min_runs: [1, 500],
  rate_window_hours: [1, 30 * 24],
  recovery_window_hours: [1, 90 * 24],
  broken_after_consecutive_failures: [2, 100],
} as const satisfies Record<string, IntRange>;
export type FlakyIntegerSetting = keyof typeof FLAKY_SETTING_RANGES;

/** Most target-branch runs the evidence of one test keeps. */
export const MAX_TARGET_BRANCH_SAMPLE = FLAKY_SETTING_RANGES.min_runs[1];
