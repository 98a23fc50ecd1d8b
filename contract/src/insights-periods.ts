/**
 * The periods and buckets of the insights (issue 29), apart from the request schemas (insights-queue.ts) so the
 * web page's bundle takes these words without zod.
 */
export const INSIGHTS_PERIODS = ["24h", "7d", "30d", "90d"] as const;
export type InsightsPeriod = (typeof INSIGHTS_PERIODS)[number];
export const INSIGHTS_BUCKETS = ["hour", "day"] as const;
export type InsightsBucket = (typeof INSIGHTS_BUCKETS)[number];

export const INSIGHTS_PERIOD_HOURS: Record<InsightsPeriod, number> = {
  "24h": 24,
  "7d": 168,
  "30d": 720,
  "90d": 2160,
};
export const INSIGHTS_BUCKET_HOURS: Record<InsightsBucket, number> = { hour: 1, day: 24 };
/** How long the coordinator keeps its hour records: the longest period. */
export const INSIGHTS_RETENTION_HOURS = INSIGHTS_PERIOD_HOURS["90d"];

/**
 * Time-to-merge percentiles come from a histogram whose bins grow by this factor (from 1 s): the figure is the
 * bin's geometric middle, within ±12% of the exact percentile, and hour records add up across hours and queues.
 */
export const TIME_TO_MERGE_BIN_RATIO = 1.25;
