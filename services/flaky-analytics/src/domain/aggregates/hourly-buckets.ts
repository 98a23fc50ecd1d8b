import { DAY_MS, HOUR_MS } from "../durations.js";

/**
 * One test's activity in one UTC hour. Hour buckets are what the service stores per test at
 * ingest time, so the spec's figures are sums over at most 192 hours, never a scan of raw results.
 */
export interface HourlyBucket {
  /** Epoch ms of the start of the hour (UTC). */
  hour: number;
  runs: number;
  failures: number;
  /** Distinct pull requests whose runs of this test failed in this hour. */
  pullRequests: number[];
}

/**
 * A test's hour buckets, packed into one array of numbers, ascending by hour: per hour one number
 * holding the hour, its runs and its failed runs (see `packHour`), then its impacted pull requests as
 * negative numbers. Every test of every repository is held in memory with its buckets, copied on
 * each upload that reaches it: one flat array of unboxed numbers costs a tenth of the same buckets
 * as objects, and it is also how a snapshot stores them. Never changed in place: an update returns
 * a new array, so a reader holding the old one sees a whole upload or none of it.
 */
export type HourlyBuckets = readonly number[];

export const NO_BUCKETS: HourlyBuckets = Object.freeze([]);

/** Runs and failures per hour saturate here (16 bits each; the hour takes the upper bits of 53). */
const MAX_COUNT = 0xffff;
const HOUR_UNIT = 2 ** 32;

/** An hour (epoch ms), its runs and failures as one exact integer below 2^53. */
function packHour(hour: number, runs: number, failures: number): number {
  return (hour / HOUR_MS) * HOUR_UNIT + Math.min(runs, MAX_COUNT) * 0x10000 + Math.min(failures, MAX_COUNT);
}

function hourAt(value: number): number {
  return Math.floor(value / HOUR_UNIT) * HOUR_MS;
}

function runsAt(value: number): number {
  return Math.floor((value % HOUR_UNIT) / 0x10000);
}

function failuresAt(value: number): number {
  return value % 0x10000;
}

/** The position after the bucket at `at` (its hour and its pull requests). */
function nextBucket(buckets: HourlyBuckets, at: number): number {
  let next = at + 1;
  while (next < buckets.length && (buckets[next] as number) < 0) next++;
  return next;
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

/** Adds a run to its hour's bucket. */
export function addRunToBuckets(buckets: HourlyBuckets, run: BucketedRun): number[] {
  const hour = hourOf(run.at);
  let at = 0;
  while (at < buckets.length && hourAt(buckets[at] as number) < hour) at = nextBucket(buckets, at);
  const found = at < buckets.length && hourAt(buckets[at] as number) === hour;
  const end = found ? nextBucket(buckets, at) : at;
  const known: number[] = [];
  for (let i = at + 1; i < end; i++) known.push(-(buckets[i] as number));
  const pullRequests = run.failed ? mergePullRequests(known, run.pullRequests ?? []) : known;
  const value = found ? (buckets[at] as number) : packHour(hour, 0, 0);
  // Sized exactly: an array grown by push keeps half as much again spare, in every test's buckets.
  const next = new Array<number>(at + 1 + pullRequests.length + buckets.length - end);
  for (let i = 0; i < at; i++) next[i] = buckets[i] as number;
  next[at] = packHour(hour, runsAt(value) + 1, failuresAt(value) + (run.failed ? 1 : 0));
  pullRequests.forEach((pr, i) => (next[at + 1 + i] = -pr));
  for (let i = end, to = at + 1 + pullRequests.length; i < buckets.length; i++, to++)
    next[to] = buckets[i] as number;
  return next;
}

function mergePullRequests(known: number[], added: readonly number[]): number[] {
  if (added.every((pr) => known.includes(pr))) return known;
  return [...new Set([...known, ...added])].sort((a, b) => a - b);
}

/** Drops buckets that no window can reach any more (older than `keepMs` before now). */
export function pruneBuckets(buckets: HourlyBuckets, now: number, keepMs = 8 * DAY_MS): HourlyBuckets {
  const oldest = hourOf(now) - keepMs;
  let at = 0;
  while (at < buckets.length && hourAt(buckets[at] as number) < oldest) at = nextBucket(buckets, at);
  // Usually none is old enough to go.
  return at === 0 ? buckets : buckets.slice(at);
}

/**
 * Calls `visit` with each bucket of the last `windowMs` ending at `now` (its position in `buckets`):
 * whole hours, the current one included, so "the last 24 hours" is the current hour and the 23 before it.
 */
function forEachInWindow(
  buckets: HourlyBuckets,
  now: number,
  windowMs: number,
  visit: (at: number) => void,
): void {
  const last = hourOf(now);
  const first = last - Math.max(0, Math.round(windowMs / HOUR_MS) - 1) * HOUR_MS;
  for (let at = 0; at < buckets.length; at = nextBucket(buckets, at)) {
    const hour = hourAt(buckets[at] as number);
    if (hour > last) break;
    if (hour >= first) visit(at);
  }
}

/** Failed runs over runs in the window, a fraction in 0..1; 0 when the test did not run. */
export function failureRate(buckets: HourlyBuckets, now: number, windowMs: number): number {
  let runs = 0;
  let failures = 0;
  forEachInWindow(buckets, now, windowMs, (at) => {
    runs += runsAt(buckets[at] as number);
    failures += failuresAt(buckets[at] as number);
  });
  return runs === 0 ? 0 : failures / runs;
}

/** Distinct pull requests whose runs of the test failed in the window. */
export function pullRequestsImpacted(buckets: HourlyBuckets, now: number, windowMs: number): number {
  const distinct = new Set<number>();
  forEachInWindow(buckets, now, windowMs, (at) => {
    const end = nextBucket(buckets, at);
    for (let i = at + 1; i < end; i++) distinct.add(-(buckets[i] as number));
  });
  return distinct.size;
}

/** The figures of a failing test record. */
export function testFigures(
  buckets: HourlyBuckets,
  now: number,
): { failure_rate_last_7d: number; failure_rate_last_24h: number; pull_requests_impacted_last_7d: number } {
  return {
    failure_rate_last_7d: failureRate(buckets, now, 7 * DAY_MS),
    failure_rate_last_24h: failureRate(buckets, now, DAY_MS),
    pull_requests_impacted_last_7d: pullRequestsImpacted(buckets, now, 7 * DAY_MS),
  };
}

/** The buckets one by one, as objects (to read them, or to show them). */
export function bucketList(buckets: HourlyBuckets): HourlyBucket[] {
  const list: HourlyBucket[] = [];
  for (let at = 0; at < buckets.length; at = nextBucket(buckets, at)) {
    const value = buckets[at] as number;
    const pullRequests = buckets.slice(at + 1, nextBucket(buckets, at)).map((pr) => -pr);
    list.push({ hour: hourAt(value), runs: runsAt(value), failures: failuresAt(value), pullRequests });
  }
  return list;
}

/** Packs buckets given one by one (as snapshots stored them before they were packed). */
export function packBuckets(list: readonly HourlyBucket[]): number[] {
  const packed: number[] = [];
  for (const bucket of [...list].sort((a, b) => a.hour - b.hour)) {
    const pullRequests = [...new Set(bucket.pullRequests)].sort((a, b) => a - b);
    packed.push(
      packHour(hourOf(bucket.hour), bucket.runs, bucket.failures),
      ...pullRequests.map((pr) => -pr),
    );
  }
  return packed;
}
