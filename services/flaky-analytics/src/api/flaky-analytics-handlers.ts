import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { FlakyAnalyticsServer } from "@mainline/proto/flaky";
import type { FlakyAnalytics } from "../app/flaky-analytics.js";
import {
  parseLinkTicket,
  parseListFailingTests,
  parseRepository,
  parseSetCodeowners,
  parseSetOverride,
  parseSettingsUpdate,
  parseTest,
  parseTestInsights,
  parseTestTrend,
  parseUpload,
  requireOrg,
} from "./command-parser.js";
import { getTestsStatus } from "./tests-status-handler.js";
import { toProtoFailingTest, toProtoRecentRun, toProtoSettings } from "./proto-mapping.js";
import { toProtoTestInsights, toProtoTestTrend } from "./insights-mapping.js";

/** The FlakyAnalytics gRPC service: proto in, parsed once (command-parser.ts), use case, proto out. */
export function flakyAnalyticsHandlers(app: FlakyAnalytics): AsyncImplementation<FlakyAnalyticsServer> {
  return {
    async uploadTestResults(request) {
      return app.uploadTestResults(parseUpload(request));
    },

    async listFailingTests(request) {
      const { org, query } = parseListFailingTests(request);
      const page = await app.listFailingTests(org, query);
      const { page: info } = page;
      return {
        tests: page.tests.map(toProtoFailingTest),
        page: {
          totalRows: info.total_rows,
          totalPages: info.total_pages,
          nextPageToken: info.next_page_token,
          prevPageToken: info.prev_page_token,
          lastPageToken: info.last_page_token,
          pageIndex: info.page_index,
        },
      };
    },

    async getTest(request) {
      const { org, repo, testId } = parseTest(request);
      const details = await app.getTest(org, repo, testId);
      return {
        test: toProtoFailingTest(details.record),
        recentRuns: details.recentRuns.map(toProtoRecentRun),
      };
    },

    async getQuarantineConfig(request) {
      const { org, repo } = parseRepository(request);
      return app.getQuarantineConfig(org, repo);
    },

    async getRepositorySettings(request) {
      const { org, repo } = parseRepository(request);
      return { settings: toProtoSettings(await app.getRepositorySettings(org, repo)) };
    },

    async updateRepositorySettings(request) {
      const { org, repo, patch } = parseSettingsUpdate(request);
      return { settings: toProtoSettings(await app.updateRepositorySettings(org, repo, patch)) };
    },

    async setTestQuarantineOverride(request) {
      const { org, repo, testId, override } = parseSetOverride(request);
      await app.setQuarantineOverride(org, repo, testId, override);
      return {};
    },

    async linkTicket(request) {
      const { org, repo, testId, url } = parseLinkTicket(request);
      await app.linkTicket(org, repo, testId, url);
      return {};
    },

    async setCodeowners(request) {
      const { org, repo, content } = parseSetCodeowners(request);
      return app.setCodeowners(org, repo, content);
    },

    async listRepositories(request) {
      return { repositories: await app.listRepositories(requireOrg(request.org)) };
    },

    getTestsStatus: (request) => getTestsStatus(app, request),

    async getTestInsights(request) {
      return toProtoTestInsights(await app.getTestInsights(parseTestInsights(request)));
    },

    async getTestTrend(request) {
      return toProtoTestTrend(await app.getTestTrend(parseTestTrend(request)));
    },
  };
}
