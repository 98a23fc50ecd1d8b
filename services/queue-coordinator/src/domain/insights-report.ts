import { binMiddleMs, emptyHour, HOUR_MS, hourOf, type InsightsHour } from "./insights-hour.js";

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
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};

/**
 * An hour as the report counts it: the record itself (time held still counted up to `now` for the hour in
 * progress), or, for an hour without a step, the last record's end state carried through it.
 */
function hourAt(h: number, record: InsightsHour | undefined, last: InsightsHour | undefined, now: number) {
  const until = Math.min(now, h + HOUR_MS);
  if (record) {
    const tail = Math.max(0, until - record.lastAt);
    return {
      ...record,
      pausedMs: record.pausedMs + (record.pausedAtEnd ? tail : 0),
      brokenMs: record.brokenMs + (record.brokenAtEnd ? tail : 0),
    };
  }
  if (!last) return undefined;
  const carried = emptyHour(h, last);
  const span = Math.max(0, until - h);
  carried.pausedMs = last.pausedAtEnd ? span : 0;
  carried.brokenMs = last.brokenAtEnd ? span : 0;
  return carried;
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
  const { from, width, count } = reportBuckets(query);
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
  const lastHour = hourOf(query.now);
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
        const hour = hourAt(h, record, last, query.now);
        if (record) last = record;
        if (!hour) continue;
        bucket.merged += hour.merged;
        bucket.ciRuns += hour.ciRuns;
        bucket.ciRunsAlone += hour.ciRunsAlone;
        bucket.bisectionRuns += hour.bisectionRuns;
        bucket.pausedMs += hour.pausedMs;
        bucket.brokenMs += hour.brokenMs;
        add(bucket.failed, hour.failed);
        add(bucket.restarts, hour.restarts);
        add(bucket.ttmSubmitted, hour.ttmSubmitted);
        add(bucket.ttmReady, hour.ttmReady);
        depthMax = Math.max(depthMax, hour.depthMax);
        depthEnd = hour.depthEnd;
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
