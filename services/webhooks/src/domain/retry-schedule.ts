import { InvalidArgumentError } from "@mainline/kit/errors/index";

/**
 * When a failed delivery is tried again. `delaysMs[n-1]` is the wait after failed attempt n; once the list
 * is used up the delivery is exhausted. The default grows roughly exponentially and spans a little over
 * 27 hours, so a receiver that is down for a full day still gets every event.
 */
export interface RetrySchedule {
  readonly delaysMs: readonly number[];
  /** Each delay is stretched by a random factor in [1, 1 + jitter): spreads retries of many
   * subscriptions that failed at once, and never shortens the schedule below its sum. */
  readonly jitter: number;
}

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

export function retrySchedule(delaysMs: readonly number[], jitter = 0.2): RetrySchedule {
  if (delaysMs.some((d) => !Number.isInteger(d) || d <= 0)) {
    throw new InvalidArgumentError("delaysMs", "whole numbers of milliseconds > 0");
  }
  if (!(jitter >= 0 && jitter <= 1)) throw new InvalidArgumentError("jitter", "a fraction from 0 to 1");
  return { delaysMs: [...delaysMs], jitter };
}

/** Attempts in all: the first one plus one per delay. */
export function maxAttempts(schedule: RetrySchedule): number {
  return schedule.delaysMs.length + 1;
}

/**
 * The wait before the attempt after failed attempt `attempt` (1-based), or undefined when the schedule is
 * exhausted. `random` is in [0, 1) (Math.random in the service, fixed in tests).
 */
export function delayAfterFailure(
  schedule: RetrySchedule,
  attempt: number,
  random: number,
): number | undefined {
  const base = schedule.delaysMs[attempt - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 + schedule.jitter * random));
}

/** The shortest total time a delivery is retried for, before jitter. */
export function minimumRetrySpanMs(schedule: RetrySchedule): number {
  return schedule.delaysMs.reduce((sum, d) => sum + d, 0);
}
