import { HOUR_MS } from "../durations.js";
import { hourOf } from "./hourly-buckets.js";

/**
 * A repository's test runs and failed runs per UTC hour over the longest insights period (90 days, plus the
 * hour the window starts in): three numbers per hour with results (hours since the epoch, runs, failed runs),
 * ascending. At most 2,185 hours, so one repository's trend is a few tens of kilobytes however many results
 * it counts; a snapshot stores it beside the tests. Never changed in place: an update returns a new array.
 */
export type RepositoryTrend = readonly number[];

export const NO_TREND: RepositoryTrend = Object.freeze([]);

export const TREND_HOURS_KEPT = 90 * 24 + 1;

/** `trend` with `runs` runs, `failures` of them failed, in the hour of `at`; hours before the kept span go. */
export function addToTrend(
  trend: RepositoryTrend,
  at: number,
  counts: { runs: number; failures: number },
  now: number,
): RepositoryTrend {
  if (counts.runs === 0) return trend;
  const hour = hourOf(at) / HOUR_MS;
  const oldest = hourOf(now) / HOUR_MS - (TREND_HOURS_KEPT - 1);
  if (hour < oldest) return trend;
  let start = 0;
  while (start < trend.length && (trend[start] as number) < oldest) start += 3;
  let at3 = trend.length;
  // Uploads mostly arrive in time order: look from the newest hour back.
  while (at3 > start && (trend[at3 - 3] as number) > hour) at3 -= 3;
  const next = trend.slice(start);
  const i = at3 - start;
  if (i > 0 && next[i - 3] === hour) {
    next[i - 2] = (next[i - 2] as number) + counts.runs;
    next[i - 1] = (next[i - 1] as number) + counts.failures;
  } else {
    next.splice(i, 0, hour, counts.runs, counts.failures);
  }
  return next;
}

/** Runs and failed runs per bucket: `count` spans of `bucketMs` from `start`. */
export function trendCounts(
  trend: RepositoryTrend,
  start: number,
  bucketMs: number,
  count: number,
): { runs: number[]; failures: number[] } {
  const runs = new Array<number>(count).fill(0);
  const failures = new Array<number>(count).fill(0);
  for (let i = 0; i < trend.length; i += 3) {
    const bucket = Math.floor(((trend[i] as number) * HOUR_MS - start) / bucketMs);
    if (bucket < 0 || bucket >= count) continue;
    runs[bucket] = (runs[bucket] as number) + (trend[i + 1] as number);
    failures[bucket] = (failures[bucket] as number) + (trend[i + 2] as number);
  }
  return { runs, failures };
}
