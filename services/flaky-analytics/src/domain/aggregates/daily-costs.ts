import { DAY_MS } from "../durations.js";

/**
 * A test's activity per UTC day over the insights' longest window (90 days), packed like the hour buckets:
 * per day two numbers, then the pull requests its failures impacted as negative numbers.
 *   first:  day (days since the epoch) * 2^32 + runs * 2^16 + failed runs   (runs and failures saturate at 65,535)
 *   second: failed merge-queue runs * 2^32 + seconds lost to retried failed attempts (saturates at 2^32 - 1)
 * Kept per test and per day (not per result) so that 1,000,000 results cost what their test-days cost; a
 * failure-free day of a test is two numbers. Never changed in place: an update returns a new array.
 */
export type DailyCosts = readonly number[];

export const NO_DAYS: DailyCosts = Object.freeze([]);

/** Days of history kept per test: the longest period (90 days) plus the day the window starts in. */
export const DAYS_KEPT = 91;

const UNIT = 2 ** 32;
const MAX_COUNT = 0xffff;
const MAX_SECONDS = UNIT - 1;

export interface CostedRun {
  at: number;
  failed: boolean;
  /** A merge-queue run the test failed (its last attempt failed): the queue's batch failed with it. */
  failedQueueRun: boolean;
  /** Milliseconds of failed attempts that were retried in the same job (0 for most runs). */
  retryMs: number;
  pullRequests: readonly number[];
}

/** One day of one test, unpacked. */
export interface DayCost {
  /** Epoch ms of the day's start (UTC). */
  day: number;
  runs: number;
  failures: number;
  failedQueueRuns: number;
  retrySeconds: number;
  pullRequests: number[];
}

export function dayOf(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

function dayAt(value: number): number {
  return Math.floor(value / UNIT) * DAY_MS;
}

function nextDay(days: DailyCosts, at: number): number {
  let next = at + 2;
  while (next < days.length && (days[next] as number) < 0) next++;
  return next;
}

/** Adds one run to its day; days older than DAYS_KEPT before `now` go. */
export function addRunToDays(days: DailyCosts, run: CostedRun, now: number): DailyCosts {
  const day = dayOf(run.at);
  const oldest = dayOf(now) - (DAYS_KEPT - 1) * DAY_MS;
  if (day < oldest) return days;
  let start = 0;
  while (start < days.length && dayAt(days[start] as number) < oldest) start = nextDay(days, start);
  let at = start;
  while (at < days.length && dayAt(days[at] as number) < day) at = nextDay(days, at);
  const found = at < days.length && dayAt(days[at] as number) === day;
  const end = found ? nextDay(days, at) : at;
  const first = found ? (days[at] as number) : (day / DAY_MS) * UNIT;
  const second = found ? (days[at + 1] as number) : 0;
  const runs = Math.min(MAX_COUNT, Math.floor((first % UNIT) / 0x10000) + 1);
  const failures = Math.min(MAX_COUNT, (first % 0x10000) + (run.failed ? 1 : 0));
  const queue = Math.min(MAX_COUNT, Math.floor(second / UNIT) + (run.failedQueueRun ? 1 : 0));
  const seconds = Math.min(MAX_SECONDS, (second % UNIT) + Math.round(run.retryMs / 1000));
  const next = days.slice(start, at);
  next.push((day / DAY_MS) * UNIT + runs * 0x10000 + failures, queue * UNIT + seconds);
  const known = new Set<number>();
  for (let i = at + 2; i < end; i++) known.add(-(days[i] as number));
  if (run.failed) for (const pr of run.pullRequests) known.add(pr);
  for (const pr of [...known].sort((a, b) => a - b)) next.push(-pr);
  for (let i = end; i < days.length; i++) next.push(days[i] as number);
  return next;
}

/** The days one by one, oldest first. */
export function dayList(days: DailyCosts): DayCost[] {
  const list: DayCost[] = [];
  for (let at = 0; at < days.length; at = nextDay(days, at)) {
    const first = days[at] as number;
    const second = days[at + 1] as number;
    list.push({
      day: dayAt(first),
      runs: Math.floor((first % UNIT) / 0x10000),
      failures: first % 0x10000,
      failedQueueRuns: Math.floor(second / UNIT),
      retrySeconds: second % UNIT,
      pullRequests: days.slice(at + 2, nextDay(days, at)).map((pr) => -pr),
    });
  }
  return list;
}

/** What a test cost over days [from, to) (epoch ms at day starts). */
export interface TestCost {
  runs: number;
  failures: number;
  failedQueueRuns: number;
  /** Distinct pull requests whose runs of the test failed. */
  pullRequestsImpacted: number;
  retrySeconds: number;
}

/** Sums the days in [from, to) without unpacking them (the costliest-tests ranking visits every test). */
export function costBetween(days: DailyCosts, from: number, to: number): TestCost {
  const cost: TestCost = {
    runs: 0,
    failures: 0,
    failedQueueRuns: 0,
    pullRequestsImpacted: 0,
    retrySeconds: 0,
  };
  let prs: Set<number> | undefined;
  for (let at = 0; at < days.length;) {
    const first = days[at] as number;
    const day = dayAt(first);
    const end = nextDay(days, at);
    if (day >= to) break;
    if (day >= from) {
      const second = days[at + 1] as number;
      cost.runs += Math.floor((first % UNIT) / 0x10000);
      cost.failures += first % 0x10000;
      cost.failedQueueRuns += Math.floor(second / UNIT);
      cost.retrySeconds += second % UNIT;
      for (let i = at + 2; i < end; i++) (prs ??= new Set()).add(days[i] as number);
    }
    at = end;
  }
  cost.pullRequestsImpacted = prs?.size ?? 0;
  return cost;
}
