import { DAY_MS, HOUR_MS } from "../durations.js";

/**
 * One test's activity in one UTC hour. Hour buckets are what the service stores per test at
 * ingest time, so the spec's figures are sums over at most 168 small documents, never a scan
 * of raw results.
 */
export interface HourlyBucket {
  /** Epoch ms of the start of the hour (UTC). */
  hour: number;
  runs: number;
  failures: number;
  /** Distinct pull requests whose runs of this test failed in this hour. */
  pullRequests: number[];
}

export function hourOf(at: number): number {
  return Math.floor(at / HOUR_MS) * HOUR_MS;
}

export interface BucketedRun {
  at: number;
  /** The test failed in this run (at least one failed or errored attempt). */
  failed: boolean;
  /** The PRs the run tested: one, or a merge-queue batch's; a failure impacted each of them. */
  pullRequests?: readonly number[] | undefined;
}

/** Adds a run to its hour's bucket; buckets stay sorted by hour. */
export function addRunToBuckets(buckets: readonly HourlyBucket[], run: BucketedRun): HourlyBucket[] {
  const hour = hourOf(run.at);
  // Runs mostly arrive in time order: the hour is the last bucket's or a new one after it.
  const last = buckets.length - 1;
  const lastHour = buckets[last]?.hour;
  const at = lastHour === hour ? last : buckets.findIndex((bucket) => bucket.hour === hour);
  const base: HourlyBucket = buckets[at] ?? { hour, runs: 0, failures: 0, pullRequests: [] };
  const added = run.failed ? (run.pullRequests ?? []).filter((pr) => !base.pullRequests.includes(pr)) : [];
  const pullRequests =
    added.length > 0
      ? [...new Set([...base.pullRequests, ...added])].sort((a, b) => a - b)
      : base.pullRequests;
  const updated: HourlyBucket = {
    hour,
    runs: base.runs + 1,
    failures: base.failures + (run.failed ? 1 : 0),
    pullRequests,
  };
  if (at >= 0) return buckets.map((bucket, index) => (index === at ? updated : bucket));
  if (lastHour === undefined || lastHour < hour) return [...buckets, updated];
  const others = buckets.filter((bucket) => bucket.hour !== hour);
  return [...others, updated].sort((a, b) => a.hour - b.hour);
}

/** Drops buckets that no window can reach any more (older than `keepMs` before now). */
export function pruneBuckets(
  buckets: readonly HourlyBucket[],
  now: number,
  keepMs = 8 * DAY_MS,
): HourlyBucket[] {
  const oldest = hourOf(now) - keepMs;
  // Buckets are sorted by hour: usually none is old enough to go.
  if ((buckets[0]?.hour ?? oldest) >= oldest) return buckets.slice();
  return buckets.filter((bucket) => bucket.hour >= oldest);
}

/**
 * The buckets of the last `windowMs` ending at `now`: whole hours, the current one included, so
 * "the last 24 hours" is the current hour and the 23 before it.
 */
export function bucketsInWindow(
  buckets: readonly HourlyBucket[],
  now: number,
  windowMs: number,
): HourlyBucket[] {
  const last = hourOf(now);
  const first = last - Math.max(0, Math.round(windowMs / HOUR_MS) - 1) * HOUR_MS;
  return buckets.filter((bucket) => bucket.hour >= first && bucket.hour <= last);
}

/** Failed runs over runs in the window, a fraction in 0..1; 0 when the test did not run. */
export function failureRate(buckets: readonly HourlyBucket[], now: number, windowMs: number): number {
  let runs = 0;
  let failures = 0;
  for (const bucket of bucketsInWindow(buckets, now, windowMs)) {
    runs += bucket.runs;
    failures += bucket.failures;
  }
  return runs === 0 ? 0 : failures / runs;
}

/** Distinct pull requests whose runs of the test failed in the window. */
export function pullRequestsImpacted(
  buckets: readonly HourlyBucket[],
  now: number,
  windowMs: number,
): number {
  const distinct = new Set<number>();
  for (const bucket of bucketsInWindow(buckets, now, windowMs))
    for (const pr of bucket.pullRequests) distinct.add(pr);
  return distinct.size;
}

/** The figures of a failing test record. */
export function testFigures(
  buckets: readonly HourlyBucket[],
  now: number,
): { failure_rate_last_7d: number; failure_rate_last_24h: number; pull_requests_impacted_last_7d: number } {
  return {
    failure_rate_last_7d: failureRate(buckets, now, 7 * DAY_MS),
    failure_rate_last_24h: failureRate(buckets, now, DAY_MS),
    pull_requests_impacted_last_7d: pullRequestsImpacted(buckets, now, 7 * DAY_MS),
  };
}
