import type { GetTestInsightsResponse, GetTestTrendResponse } from "@mainline/proto/flaky";
import type { TestInsights, TestTrend } from "../app/test-insights.js";
import { toProtoRecentRun } from "./proto-mapping.js";

/** Test insights in the wire's words (epoch ms become timestamps). */
export function toProtoTestInsights(insights: TestInsights): GetTestInsightsResponse {
  return {
    from: new Date(insights.window.start),
    to: new Date(insights.window.end),
    buckets: insights.buckets.map((b) => ({
      start: new Date(b.start),
      runs: b.runs,
      failures: b.failures,
      flakyTests: b.flakyTests,
      brokenTests: b.brokenTests,
    })),
    costliest: insights.costliest.map((t) => ({
      testId: t.id,
      name: t.name,
      variant: t.variant,
      ...(t.classname !== undefined ? { classname: t.classname } : {}),
      ...(t.file !== undefined ? { filePath: t.file } : {}),
      status: t.status,
      htmlUrl: t.htmlUrl,
      runs: t.runs,
      failures: t.failures,
      failedQueueRuns: t.failedQueueRuns,
      pullRequestsImpacted: t.pullRequestsImpacted,
      retrySeconds: t.retrySeconds,
    })),
    totalCostlyTests: insights.totalCostlyTests,
    nextCursor: insights.nextCursor,
  };
}

export function toProtoTestTrend(trend: TestTrend): GetTestTrendResponse {
  return {
    testId: trend.id,
    name: trend.name,
    bucket: trend.window.bucket,
    from: new Date(trend.window.start),
    to: new Date(trend.window.end),
    buckets: trend.buckets.map((b) => ({ start: new Date(b.start), runs: b.runs, failures: b.failures })),
    recentRuns: trend.recentRuns.map(toProtoRecentRun),
  };
}
