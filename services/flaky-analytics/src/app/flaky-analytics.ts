import type { Logger } from "@mainline/kit/logging/index";
import type {
  ListFailingTestsQuery,
  QuarantineConfig,
  QuarantineOverride,
  RepositoryRef,
} from "../domain/index.js";
import type { FlakyStore } from "../store/flaky-store.js";
import { CodeownersCache } from "./codeowners-cache.js";
import { FailingIdsCache } from "./failing-ids-cache.js";
import { ingestResults } from "./ingest-results.js";
import type { IngestResult } from "./ingest-results.js";
import { KeyedLock } from "./keyed-lock.js";
import { Links } from "./links.js";
import { listFailingTests } from "./list-failing-tests.js";
import { organizationRepositories } from "./organization-repositories.js";
import type { FailingTestsPage } from "./list-failing-tests.js";
import * as admin from "./repository-admin.js";
import type { RepositorySettingsPatch, RepositorySettingsView } from "./repository-admin.js";
import { StatusOutbox } from "./status-outbox.js";
import type { PublishStatusChange } from "./status-outbox.js";
import { TestIdCache } from "./test-id-cache.js";
import { DEFAULT_SNAPSHOT_POLICY, TestIndexes } from "./test-indexes.js";
import type { SnapshotPolicy } from "./test-indexes.js";
import type { TestResultsUpload } from "./test-results-upload.js";

import { getTest, type TestDetails } from "./get-test.js";
import { InsightsCache } from "./insights-cache.js";
import {
  testInsights,
  testTrend,
  type RepositoryInsights,
  type TestInsights,
  type TestInsightsQuery,
  type TestTrend,
} from "./test-insights.js";
import type { TestInsightsBucket, TestInsightsPeriod } from "@mainline/contract";
import { testsStatus, type TestStatusAnswer, type TestsStatusQuery } from "./tests-status.js";
export interface FlakyAnalyticsOptions {
  store: FlakyStore;
  publishStatusChange: PublishStatusChange;
  logger: Logger;
  pageTokenKey: string;
  publicBaseUrl: string;
  now?: () => number;
  /** When a repository's journal becomes a snapshot (tests use a small one). */
  snapshotPolicy?: SnapshotPolicy;
}

/** The service's use cases, whichever way they are called (gRPC, JetStream, a benchmark). */
export class FlakyAnalytics {
  readonly outbox: StatusOutbox;
  private readonly lock = new KeyedLock();
  private readonly codeowners = new CodeownersCache();
  private readonly failingIds = new FailingIdsCache();
  private readonly testIndexes: TestIndexes;
  private readonly testIds = new TestIdCache();
  private readonly insights = new InsightsCache<RepositoryInsights>();
  private readonly links: Links;
  private readonly now: () => number;

  constructor(private readonly options: FlakyAnalyticsOptions) {
    this.now = options.now ?? Date.now;
    this.links = new Links(options.publicBaseUrl);
    this.testIndexes = new TestIndexes({
      store: options.store,
      logger: options.logger,
      policy: options.snapshotPolicy ?? DEFAULT_SNAPSHOT_POLICY,
      lock: this.lock,
    });
    this.outbox = new StatusOutbox({
      store: options.store,
      testIndexes: this.testIndexes,
      lock: this.lock,
      codeowners: this.codeowners,
      links: this.links,
      publish: options.publishStatusChange,
      logger: options.logger,
    });
  }

  async uploadTestResults(upload: TestResultsUpload): Promise<Omit<IngestResult, "changed">> {
    let result: IngestResult;
    try {
      result = await ingestResults(this.deps(), upload);
    } finally {
      // Also after a failure: the test index may have been reloaded.
      this.failingIds.invalidate(admin.lockKey(upload.org, upload.repo));
    }
    const { changed, ...summary } = result;
    await this.outbox.deliver(changed);
    return summary;
  }

  listFailingTests(callerOrg: string, query: ListFailingTestsQuery): Promise<FailingTestsPage> {
    return listFailingTests(
      {
        store: this.options.store,
        testIndexes: this.testIndexes,
        codeowners: this.codeowners,
        failingIds: this.failingIds,
        links: this.links,
        pageTokenKey: this.options.pageTokenKey,
        now: this.now,
      },
      callerOrg,
      query,
    );
  }

  getTest(org: string, repo: RepositoryRef, testId: string): Promise<TestDetails> {
    const { store } = this.options;
    return getTest(
      { store, testIndexes: this.testIndexes, codeowners: this.codeowners, links: this.links, now: this.now },
      org,
      repo,
      testId,
    );
  }

  /** The merge queue's question when a run fails: a batch of tests, answered from memory. */
  getTestsStatus(
    query: TestsStatusQuery,
  ): Promise<{ tests: TestStatusAnswer[]; quarantiningEnabled: boolean }> {
    return testsStatus({ store: this.options.store, testIndexes: this.testIndexes, now: this.now }, query);
  }

  /** A repository's tests over a period and its costliest tests (the flaky tests page's charts). */
  getTestInsights(query: TestInsightsQuery): Promise<TestInsights> {
    return testInsights(this.insightsDeps(), query);
  }

  /** One test's runs and failures over a period, and its latest runs. */
  getTestTrend(query: {
    org: string;
    repo: RepositoryRef;
    testId: string;
    period: TestInsightsPeriod;
    bucket: TestInsightsBucket;
  }): Promise<TestTrend> {
    return testTrend(this.insightsDeps(), query);
  }

  getQuarantineConfig(org: string, repo: RepositoryRef): Promise<QuarantineConfig> {
    return admin.getQuarantineConfig(this.deps(), org, repo);
  }

  getRepositorySettings(org: string, repo: RepositoryRef): Promise<RepositorySettingsView> {
    return admin.getRepositorySettings(this.deps(), org, repo);
  }

  updateRepositorySettings(
    org: string,
    repo: RepositoryRef,
    patch: RepositorySettingsPatch,
  ): Promise<RepositorySettingsView> {
    return admin.updateRepositorySettings(this.deps(), org, repo, patch);
  }

  setQuarantineOverride(
    org: string,
    repo: RepositoryRef,
    testId: string,
    override: QuarantineOverride | undefined,
  ): Promise<void> {
    return admin.setQuarantineOverride(this.deps(), org, repo, testId, override);
  }

  linkTicket(org: string, repo: RepositoryRef, testId: string, url: string): Promise<void> {
    return admin.linkTicket(this.deps(), org, repo, testId, url);
  }

  setCodeowners(
    org: string,
    repo: RepositoryRef,
    content: string,
  ): Promise<{ rules: number; problems: string[] }> {
    return admin.setCodeowners(this.deps(), org, repo, content);
  }

  listRepositories(org: string): Promise<RepositoryRef[]> {
    return organizationRepositories(this.options.store, org);
  }

  /** Waits for writes in flight (shutdown's finish-in-flight stage). */
  idle(): Promise<void> {
    return this.lock.idle();
  }

  private insightsDeps() {
    return {
      store: this.options.store,
      testIndexes: this.testIndexes,
      links: this.links,
      now: this.now,
      cache: this.insights,
    };
  }

  private deps() {
    return {
      store: this.options.store,
      testIndexes: this.testIndexes,
      lock: this.lock,
      testIds: this.testIds,
      logger: this.options.logger,
      now: this.now,
    };
  }
}
