import {
  TEST_STATUSES,
  type RecentRunOutcome,
  type TestInsightsBucket,
  type TestStatus as ApiTestStatus,
} from "@mainline/contract";
import { callUnary } from "@mainline/kit/grpc/index";
import { ResultContext } from "@mainline/proto/flaky";
import { endpoint, type Endpoint } from "../endpoint.js";
import {
  testInsightsRequest,
  testInsightsResponse,
  testTrendRequest,
  testTrendResponse,
} from "../schemas/insights-tests.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const TAG = "Insights";
const iso = (date: Date | undefined): string => (date ?? new Date(0)).toISOString();

function statusWord(status: string): ApiTestStatus {
  return TEST_STATUSES.find((s) => s === status) ?? "healthy";
}

/** flaky-analytics says which bucket it answered a test's chart by (by the day beyond 7 days). */
function answeredBucket(bucket: string): TestInsightsBucket {
  return bucket === "hour" ? "hour" : "day";
}

/** The test insights: charts of a repository's tests and of one test, answered from flaky-analytics' aggregates. */
export function insightsTestsEndpoints(up: Upstreams): Endpoint[] {
  const f = up.flaky;
  return [
    endpoint({
      method: "post",
      path: "/insights/tests",
      operationId: "getTestInsights",
      summary:
        "A repository's test runs, failures, flaky and broken tests per hour or day over 24h to 90d, and its costliest tests (failed queue runs, PRs impacted, time lost to retries), a page at a time",
      tag: TAG,
      access: "org",
      input: testInsightsRequest,
      inputIn: "body",
      output: testInsightsResponse,
      async handle(input, { principal }) {
        const response = await callUnary(f.getTestInsights.bind(f), {
          org: principal.org,
          repo: input.repository,
          period: input.period,
          bucket: input.bucket,
          cursor: input.cursor ?? "",
          limit: input.limit ?? 0,
        });
        return {
          period: input.period,
          bucket: input.bucket,
          from: iso(response.from),
          to: iso(response.to),
          buckets: response.buckets.map((b) => ({
            start: iso(b.start),
            runs: b.runs,
            failures: b.failures,
            flaky_tests: b.flakyTests,
            broken_tests: b.brokenTests,
          })),
          costliest: response.costliest.map((t) => ({
            test_id: t.testId,
            name: t.name,
            variant: t.variant,
            ...(t.classname !== undefined ? { classname: t.classname } : {}),
            ...(t.filePath !== undefined ? { file_path: t.filePath } : {}),
            status: statusWord(t.status),
            html_url: t.htmlUrl,
            runs: t.runs,
            failures: t.failures,
            failed_queue_runs: t.failedQueueRuns,
            pull_requests_impacted: t.pullRequestsImpacted,
            retry_seconds: t.retrySeconds,
          })),
          total_costly_tests: response.totalCostlyTests,
          ...(response.nextCursor ? { next_cursor: response.nextCursor } : {}),
        };
      },
    }),
    endpoint({
      method: "post",
      path: "/insights/test",
      operationId: "getTestTrend",
      summary:
        "One test's runs, failures and failure rate per hour (up to 7 days) or day (up to 90 days), and its latest runs (the pass/fail strip); 404 for a test the repository does not know",
      tag: TAG,
      access: "org",
      input: testTrendRequest,
      inputIn: "body",
      output: testTrendResponse,
      async handle(input, { principal }) {
        const response = await callUnary(f.getTestTrend.bind(f), {
          org: principal.org,
          repo: input.repository,
          testId: input.test_id,
          period: input.period,
          bucket: input.bucket,
        });
        return {
          test_id: response.testId,
          name: response.name,
          period: input.period,
          bucket: answeredBucket(response.bucket),
          from: iso(response.from),
          to: iso(response.to),
          buckets: response.buckets.map((b) => ({
            start: iso(b.start),
            runs: b.runs,
            failures: b.failures,
            failure_rate: b.runs === 0 ? 0 : b.failures / b.runs,
          })),
          recent_runs: response.recentRuns.map((run) => ({
            at: iso(run.at),
            outcome: run.outcome as RecentRunOutcome,
            context:
              run.context === ResultContext.MERGE_QUEUE || run.context === ResultContext.BISECTION
                ? run.context
                : ("CI" as const),
            ...(run.prNumber !== undefined ? { pr_number: run.prNumber } : {}),
          })),
        };
      },
    }),
  ];
}
