import { z } from "zod";
import { RECENT_RUN_OUTCOMES, RESULT_CONTEXTS, TEST_STATUSES } from "./http/flaky-responses.js";
import {
  INSIGHTS_BUCKET_HOURS,
  INSIGHTS_BUCKETS,
  INSIGHTS_PERIOD_HOURS,
  INSIGHTS_PERIODS,
  type InsightsBucket,
  type InsightsPeriod,
} from "./insights-periods.js";

/**
 * Test insights (POST /v1/insights/tests and /v1/insights/test): a repository's runs, failures and flaky and
 * broken tests per hour or day, its costliest tests, and one test's failure rate over time. The gateway refuses
 * a request outside these bounds with a 400 and flaky-analytics with INVALID_ARGUMENT, both from these values.
 */

const HOUR_MS = 3_600_000;

/** The periods a chart covers, ending now (the queue insights' own words), each with its length in milliseconds. */
export type TestInsightsPeriod = InsightsPeriod;
export const TEST_INSIGHTS_PERIOD_NAMES = INSIGHTS_PERIODS;
export const TEST_INSIGHTS_PERIODS = Object.fromEntries(
  INSIGHTS_PERIODS.map((p) => [p, INSIGHTS_PERIOD_HOURS[p] * HOUR_MS]),
) as Record<TestInsightsPeriod, number>;

/** The span of one bucket (UTC hours or days). */
export type TestInsightsBucket = InsightsBucket;
export const TEST_INSIGHTS_BUCKET_NAMES = INSIGHTS_BUCKETS;
export const TEST_INSIGHTS_BUCKETS = Object.fromEntries(
  INSIGHTS_BUCKETS.map((b) => [b, INSIGHTS_BUCKET_HOURS[b] * HOUR_MS]),
) as Record<TestInsightsBucket, number>;

export const TEST_INSIGHTS_PAGE = {
  /** Costliest tests per page. */
  maxLimit: 100,
  defaultLimit: 20,
  /** A cursor is the opaque text an earlier answer's next_cursor gave. */
  maxCursorLength: 200,
} as const;

/**
 * A test's own hour buckets reach back 8 days: a test's chart by the hour covers at most 7 days, and a longer
 * period is answered by the day (the answer's `bucket` says which).
 */
export const TEST_TREND_MAX_HOURLY_PERIOD: TestInsightsPeriod = "7d";

const time = z.iso.datetime({ offset: true });
const count = z.int().min(0);

export const testInsightsBucket = z.object({
  start: time,
  runs: count.describe("Test runs in the bucket (bisection runs are no evidence and not counted)"),
  failures: count.describe("Runs in which a test failed at least one attempt (as failure rates count them)"),
  flaky_tests: count.describe("Tests whose status was flaky at some time in the bucket"),
  broken_tests: count.describe("Tests whose status was broken at some time in the bucket"),
});

export const costlyTest = z.object({
  test_id: z.string(),
  name: z.string(),
  variant: z.string(),
  classname: z.string().optional(),
  file_path: z.string().optional(),
  status: z.enum(TEST_STATUSES),
  html_url: z.url(),
  runs: count,
  failures: count,
  failed_queue_runs: count.describe("Merge-queue runs the test failed (its last attempt failed)"),
  pull_requests_impacted: count.describe("Distinct pull requests whose runs of the test failed"),
  retry_seconds: count.describe("Time spent on failed attempts that were retried, in seconds"),
});

export const testInsightsResponse = z.object({
  period: z.enum(TEST_INSIGHTS_PERIOD_NAMES),
  bucket: z.enum(TEST_INSIGHTS_BUCKET_NAMES),
  from: time.describe("Start of the first bucket"),
  to: time.describe("End of the last bucket (the current bucket included)"),
  buckets: z.array(testInsightsBucket),
  costliest: z
    .array(costlyTest)
    .describe(
      "Tests that failed or lost time to retries in the period's UTC days, costliest first: most failed queue runs, then PRs impacted, then retry time",
    ),
  total_costly_tests: count,
  next_cursor: z.string().optional().describe("Pass as cursor for the next page; absent on the last page"),
});

export const testTrendResponse = z.object({
  test_id: z.string(),
  name: z.string(),
  period: z.enum(TEST_INSIGHTS_PERIOD_NAMES),
  bucket: z
    .enum(TEST_INSIGHTS_BUCKET_NAMES)
    .describe("The bucket answered: by day for a period longer than 7 days"),
  from: time,
  to: time,
  buckets: z.array(
    z.object({
      start: time,
      runs: count,
      failures: count,
      failure_rate: z.number().min(0).max(1).describe("failures / runs; 0 without runs"),
    }),
  ),
  recent_runs: z
    .array(
      z.object({
        at: time,
        outcome: z.enum(RECENT_RUN_OUTCOMES),
        context: z.enum(RESULT_CONTEXTS),
        pr_number: z.int().min(1).optional(),
      }),
    )
    .describe("The latest runs, oldest first: the pass/fail strip"),
});

export type TestInsightsResponse = z.infer<typeof testInsightsResponse>;
export type TestTrendResponse = z.infer<typeof testTrendResponse>;
export type CostlyTest = z.infer<typeof costlyTest>;
