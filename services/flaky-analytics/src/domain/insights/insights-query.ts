import { InvalidArgumentError } from "@mainline/kit/errors/index";
import {
  TEST_INSIGHTS_BUCKETS,
  TEST_INSIGHTS_PAGE,
  TEST_INSIGHTS_PERIODS,
  type TestInsightsBucket,
  type TestInsightsPeriod,
} from "@mainline/contract";
import { DAY_MS } from "../durations.js";

/** A chart's time axis: `count` buckets of `bucketMs` from `start`, the last one holding `now`. */
export interface InsightsWindow {
  period: TestInsightsPeriod;
  bucket: TestInsightsBucket;
  bucketMs: number;
  start: number;
  end: number;
  count: number;
  /** The UTC days costs are counted over: [costFrom, costTo), whole days covering the period. */
  costFrom: number;
  costTo: number;
}

export function periodOf(value: string): TestInsightsPeriod {
  if (Object.hasOwn(TEST_INSIGHTS_PERIODS, value)) return value as TestInsightsPeriod;
  throw new InvalidArgumentError("period", `must be one of ${Object.keys(TEST_INSIGHTS_PERIODS).join(", ")}`);
}

export function bucketOf(value: string): TestInsightsBucket {
  if (Object.hasOwn(TEST_INSIGHTS_BUCKETS, value)) return value as TestInsightsBucket;
  throw new InvalidArgumentError("bucket", `must be one of ${Object.keys(TEST_INSIGHTS_BUCKETS).join(", ")}`);
}

/** Costliest tests per page: 0 (unset) means the default. */
export function limitOf(value: number): number {
  if (value === 0) return TEST_INSIGHTS_PAGE.defaultLimit;
  if (!Number.isInteger(value) || value < 1 || value > TEST_INSIGHTS_PAGE.maxLimit) {
    throw new InvalidArgumentError("limit", `must be an integer from 1 to ${TEST_INSIGHTS_PAGE.maxLimit}`);
  }
  return value;
}

/** The window of `period` by `bucket` at `now`: whole UTC buckets, the current one last. */
export function insightsWindow(
  period: TestInsightsPeriod,
  bucket: TestInsightsBucket,
  now: number,
): InsightsWindow {
  const bucketMs = TEST_INSIGHTS_BUCKETS[bucket];
  const periodMs = TEST_INSIGHTS_PERIODS[period];
  const end = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  const count = Math.max(1, Math.round(periodMs / bucketMs));
  const costTo = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  return {
    period,
    bucket,
    bucketMs,
    start: end - count * bucketMs,
    end,
    count,
    costFrom: Math.floor((now - periodMs) / DAY_MS) * DAY_MS,
    costTo,
  };
}
