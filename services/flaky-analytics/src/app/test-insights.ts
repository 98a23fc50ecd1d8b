import { NotFoundError } from "@mainline/kit/errors/index";
import {
  bucketList,
  changeAt,
  changeValue,
  costBetween,
  dayList,
  decodeCostliestCursor,
  encodeCostliestCursor,
  insightsWindow,
  packChange,
  recentRunList,
  StatusTally,
  trendCounts,
} from "../domain/index.js";
import type {
  InsightsWindow,
  RecentRun,
  RepositoryRef,
  StatusChanges,
  TestCost,
  TestStatusValue,
} from "../domain/index.js";
import { TEST_TREND_MAX_HOURLY_PERIOD, TEST_INSIGHTS_PERIODS } from "@mainline/contract";
import type { TestInsightsBucket, TestInsightsPeriod } from "@mainline/contract";
import type { RepositoryDocument, TestDocument } from "../store/documents.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { repositorySpelling } from "../store/repository-key.js";
import { currentStatus } from "./failing-test-record.js";
import type { Links } from "./links.js";
import type { InsightsCache } from "./insights-cache.js";
import type { TestIndex } from "./test-index.js";
import type { TestIndexes } from "./test-indexes.js";

export interface TestInsightsDeps {
  store: FlakyStore;
  testIndexes: TestIndexes;
  links: Links;
  now: () => number;
  cache: InsightsCache<RepositoryInsights>;
}

/** What a query's window gives before paging: its buckets, and every costly test in cost order. */
export interface RepositoryInsights {
  buckets: TestInsights["buckets"];
  costly: { doc: TestDocument; cost: TestCost }[];
}

export interface TestInsightsQuery {
  org: string;
  repo: RepositoryRef;
  period: TestInsightsPeriod;
  bucket: TestInsightsBucket;
  cursor: string;
  limit: number;
}

export interface CostlyTestRecord extends TestCost {
  id: string;
  name: string;
  variant: string;
  classname?: string | undefined;
  file?: string | undefined;
  status: TestStatusValue;
  htmlUrl: string;
}

export interface TestInsights {
  window: InsightsWindow;
  buckets: { start: number; runs: number; failures: number; flakyTests: number; brokenTests: number }[];
  costliest: CostlyTestRecord[];
  totalCostlyTests: number;
  nextCursor: string;
}

/**
 * A repository's tests over a period: runs and failures per bucket from the repository's hourly trend, flaky and
 * broken tests per bucket from each test's status changes, and the costliest tests from each test's days. Every
 * figure comes from aggregates folded in as uploads were applied (the same on every replica): one pass over
 * the repository's tests, never over results.
 */
export async function testInsights(deps: TestInsightsDeps, query: TestInsightsQuery): Promise<TestInsights> {
  const { org, repo } = query;
  const offset = decodeCostliestCursor(query.cursor, query.period);
  const repoKey = repositorySpelling(repo);
  const [testIndex, repository] = await Promise.all([
    deps.testIndexes.current(org, repoKey),
    deps.store.repositories.get(org, repo),
  ]);
  const now = deps.now();
  const window = insightsWindow(query.period, query.bucket, now);
  // The window moves with the hour (statuses judged now), the tests with the journal, statuses with the settings.
  const hour = Math.floor(now / 3_600_000);
  const key = [org, repoKey, testIndex.seq, repository.updatedAt, query.period, query.bucket, hour].join(
    "\n",
  );
  const { buckets, costly } = deps.cache.get(key, () => computeInsights(testIndex, repository, window, now));
  const page = costly.slice(offset, offset + query.limit);
  return {
    window,
    buckets,
    costliest: page.map(({ doc, cost }) => ({
      ...cost,
      id: doc._id,
      name: doc.name,
      variant: doc.variant,
      classname: doc.classname,
      file: doc.file,
      status: currentStatus(doc, repository, now).value,
      htmlUrl: deps.links.test(org, doc.repo, doc._id),
    })),
    totalCostlyTests: costly.length,
    nextCursor:
      offset + page.length < costly.length ? encodeCostliestCursor(query.period, offset + page.length) : "",
  };
}

/** One pass over the repository's tests: flaky and broken tests per bucket, and the costly tests ranked. */
function computeInsights(
  testIndex: TestIndex,
  repository: RepositoryDocument,
  window: InsightsWindow,
  now: number,
): RepositoryInsights {
  const { start, bucketMs, count } = window;
  const { runs, failures } = trendCounts(testIndex.trend, start, bucketMs, count);
  const tally = new StatusTally(start, bucketMs, count);
  const costly: { doc: TestDocument; cost: TestCost }[] = [];
  for (const doc of testIndex.values()) {
    if (doc.statusChanges !== undefined || doc.status.value !== "healthy") {
      tally.add(changesUntilNow(doc, repository, now));
    }
    if (doc.days === undefined) continue;
    const cost = costBetween(doc.days, window.costFrom, window.costTo);
    if (cost.failures > 0 || cost.retrySeconds > 0) costly.push({ doc, cost });
  }
  costly.sort(byCost);
  const { flaky, broken } = tally.result();
  return {
    buckets: runs.map((r, i) => ({
      start: start + i * bucketMs,
      runs: r,
      failures: failures[i] as number,
      flakyTests: flaky[i] as number,
      brokenTests: broken[i] as number,
    })),
    costly,
  };
}

/**
 * A test's status changes, with the one its quiet window made since its last result: a flaky test that had
 * no flaky signal for the window reads healthy from the time the window ended, also between uploads.
 */
function changesUntilNow(doc: TestDocument, repository: RepositoryDocument, now: number): StatusChanges {
  const changes = doc.statusChanges ?? [packChange(doc.status.timestamp, doc.status.value)];
  const last = changes[changes.length - 1];
  if (last === undefined || changeValue(last) === "healthy") return changes;
  const status = currentStatus(doc, repository, now);
  if (status.value === changeValue(last) || status.timestamp < changeAt(last)) return changes;
  return [...changes, packChange(status.timestamp, status.value)];
}

function byCost(a: { doc: TestDocument; cost: TestCost }, b: { doc: TestDocument; cost: TestCost }): number {
  return (
    b.cost.failedQueueRuns - a.cost.failedQueueRuns ||
    b.cost.pullRequestsImpacted - a.cost.pullRequestsImpacted ||
    b.cost.retrySeconds - a.cost.retrySeconds ||
    b.cost.failures - a.cost.failures ||
    compare(a.doc.name, b.doc.name) ||
    compare(a.doc._id, b.doc._id)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface TestTrend {
  id: string;
  name: string;
  window: InsightsWindow;
  buckets: { start: number; runs: number; failures: number }[];
  /** Oldest first. */
  recentRuns: RecentRun[];
}

/**
 * One test's runs and failures per bucket and its latest runs. A test keeps its hours for 8 days and its days
 * for 90: by the hour a test's chart covers at most 7 days, and a longer period is answered by the day.
 */
export async function testTrend(
  deps: TestInsightsDeps,
  query: {
    org: string;
    repo: RepositoryRef;
    testId: string;
    period: TestInsightsPeriod;
    bucket: TestInsightsBucket;
  },
): Promise<TestTrend> {
  const repoKey = repositorySpelling(query.repo);
  const testIndex = await deps.testIndexes.current(query.org, repoKey);
  const doc = testIndex.get(query.testId.toLowerCase()) ?? testIndex.get(query.testId);
  if (doc === undefined)
    throw new NotFoundError(`test ${query.testId} does not exist in repository ${repoKey}`);
  const hourly =
    query.bucket === "hour" &&
    TEST_INSIGHTS_PERIODS[query.period] <= TEST_INSIGHTS_PERIODS[TEST_TREND_MAX_HOURLY_PERIOD];
  const window = insightsWindow(query.period, hourly ? "hour" : "day", deps.now());
  const { start, bucketMs, count } = window;
  const buckets = Array.from({ length: count }, (_, i) => ({
    start: start + i * bucketMs,
    runs: 0,
    failures: 0,
  }));
  const source = hourly
    ? bucketList(doc.buckets).map((b) => ({ at: b.hour, runs: b.runs, failures: b.failures }))
    : dayList(doc.days ?? []).map((d) => ({ at: d.day, runs: d.runs, failures: d.failures }));
  for (const { at, runs, failures } of source) {
    const bucket = buckets[Math.floor((at - start) / bucketMs)];
    if (at < start || bucket === undefined) continue;
    bucket.runs += runs;
    bucket.failures += failures;
  }
  return { id: doc._id, name: doc.name, window, buckets, recentRuns: recentRunList(doc.recentRuns) };
}
