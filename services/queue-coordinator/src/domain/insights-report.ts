import { binMiddleMs, HOUR_MS, hourOf, type InsightsHour } from "./insights-hour.js";

/** One bucket of the report: the queues' hours in it added up (durations in ms, histograms merged). */
export interface InsightsTotals {
  start: number;
  merged: number;
  failed: Record<string, number>;
  ttmSubmitted: Record<string, number>;
  ttmReady: Record<string, number>;
  depthMax: number;
  depthEnd: number;
  ciRuns: number;
  ciRunsAlone: number;
  bisectionRuns: number;
  restarts: Record<string, number>;
  pausedMs: number;
  brokenMs: number;
}

export interface InsightsQuery {
  now: number;
  periodHours: number;
  /** 1 or 24. */
  bucketHours: number;
}

const add = (into: Record<string, number>, from: Record<string, number>) => {
  // for-in, not Object.entries: this runs per hour and queue, and the pairs' arrays were most of the garbage.
  for (const k in from) into[k] = (into[k] ?? 0) + from[k]!;
};

/** Paused and broken ms an hour counts: the record's, plus the held time from its last step up to `now`. */
interface HeldTime {
  pausedMs: number;
  brokenMs: number;
}

/**
 * An hour's held time as the report counts it: the record's (time held still counted up to `now` for the hour in
 * progress), or, for an hour without a step, the last record's end state carried through it.
 */
function heldAt(h: number, record: InsightsHour | undefined, last: InsightsHour, now: number): HeldTime {
  const until = Math.min(now, h + HOUR_MS);
  if (record) {
    const tail = Math.max(0, until - record.lastAt);
    return {
      pausedMs: record.pausedMs + (record.pausedAtEnd ? tail : 0),
      brokenMs: record.brokenMs + (record.brokenAtEnd ? tail : 0),
    };
  }
  const span = Math.max(0, until - h);
  return { pausedMs: last.pausedAtEnd ? span : 0, brokenMs: last.brokenAtEnd ? span : 0 };
}

/** The report's buckets: as many as the period holds, the last one the bucket that holds `now`. */
export function reportBuckets(query: InsightsQuery): { from: number; width: number; count: number } {
  const width = query.bucketHours * HOUR_MS;
  const last = Math.floor(query.now / width) * width;
  const count = Math.ceil(query.periodHours / query.bucketHours);
  return { from: last - (count - 1) * width, width, count };
}

/**
 * Adds up each queue's hours into the report's buckets. `hours` holds, per queue, its records from the period's
 * start on, oldest first, preceded by the last record before it (the state carried into the period), if any.
 */
export function buildReport(
  hours: readonly (readonly InsightsHour[])[],
  query: InsightsQuery,
): InsightsTotals[] {
  return buildBuckets(hours, { ...reportBuckets(query), now: query.now });
}

/** A run of `count` buckets of `width` ms from `from`: a report's, or its tail after buckets known already. */
export interface BucketRange {
  from: number;
  width: number;
  count: number;
  now: number;
}

/** buildReport over any run of buckets; `hours` as there, from the range's start on. */
export function buildBuckets(
  hours: readonly (readonly InsightsHour[])[],
  range: BucketRange,
): InsightsTotals[] {
  const { from, width, count } = range;
  const buckets: InsightsTotals[] = Array.from({ length: count }, (_, i) => ({
    start: from + i * width,
    merged: 0,
    failed: {},
    ttmSubmitted: {},
    ttmReady: {},
    depthMax: 0,
    depthEnd: 0,
    ciRuns: 0,
    ciRunsAlone: 0,
    bisectionRuns: 0,
    restarts: {},
    pausedMs: 0,
    brokenMs: 0,
  }));
  const lastHour = hourOf(range.now);
  for (const records of hours) {
    let i = 0;
    let last: InsightsHour | undefined;
    while (i < records.length && records[i]!.hour < from) last = records[i++];
    for (let b = 0; b < count; b++) {
      const bucket = buckets[b]!;
      let depthMax = 0;
      let depthEnd = 0;
      for (let h = bucket.start; h < bucket.start + width && h <= lastHour; h += HOUR_MS) {
        const record = records[i]?.hour === h ? records[i++] : undefined;
        if (!record && !last) continue;
        const held = heldAt(h, record, (record ?? last)!, range.now);
        bucket.pausedMs += held.pausedMs;
        bucket.brokenMs += held.brokenMs;
        if (record) {
          last = record;
          bucket.merged += record.merged;
          bucket.ciRuns += record.ciRuns;
          bucket.ciRunsAlone += record.ciRunsAlone;
          bucket.bisectionRuns += record.bisectionRuns;
          add(bucket.failed, record.failed);
          add(bucket.restarts, record.restarts);
          add(bucket.ttmSubmitted, record.ttmSubmitted);
          add(bucket.ttmReady, record.ttmReady);
          depthMax = Math.max(depthMax, record.depthMax);
        } else {
          // An hour without a step: the queue stayed as deep as the last step left it.
          depthMax = Math.max(depthMax, last!.depthEnd);
        }
        depthEnd = last!.depthEnd;
      }
      // Across queues: the sum of each queue's deepest (an upper bound of the deepest at once) and of their ends.
      bucket.depthMax += depthMax;
      bucket.depthEnd += depthEnd;
    }
  }
  return buckets;
}

/** The p-th percentile (0 < p <= 1) of a histogram, in ms; null when it is empty. */
export function percentileMs(histogram: Record<string, number>, p: number): number | null {
  const bins = Object.entries(histogram)
    .map(([bin, n]) => [Number(bin), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = bins.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (const [bin, n] of bins) {
    seen += n;
    if (seen >= rank) return binMiddleMs(bin);
  }
  return null;
}
