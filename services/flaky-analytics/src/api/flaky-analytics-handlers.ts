import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { FlakyAnalyticsServer, ListFailingTestsRequest } from "@mainline/proto/flaky";
import type { FlakyAnalytics } from "../app/flaky-analytics.js";
import { checkListFailingTestsQuery, type ListFailingTestsQuery } from "../domain/index.js";
import {
  contextOf,
  overrideOf,
  repoOf,
  requireOrg,
  toProtoFailingTest,
  toProtoRecentRun,
  toProtoSettings,
} from "./proto-mapping.js";

/** The FlakyAnalytics gRPC service: proto in, use case, proto out. */
export function flakyAnalyticsHandlers(app: FlakyAnalytics): AsyncImplementation<FlakyAnalyticsServer> {
  return {
    async uploadTestResults(request) {
      return app.uploadTestResults({
        org: requireOrg(request.org),
        repo: repoOf(request.repo),
        commitSha: request.commitSha,
        branch: request.branch,
        prNumber: request.prNumber,
        variant: request.variant,
        jobName: request.jobName,
        runStartedAt: request.runStartedAt?.getTime(),
        context: contextOf(request.context),
        junitXml: request.junitXml,
        uploadId: request.uploadId,
      });
    },

    async listFailingTests(request) {
      const page = await app.listFailingTests(requireOrg(request.org), listQueryOf(request));
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
      const details = await app.getTest(requireOrg(request.org), repoOf(request.repo), request.testId);
      return {
        test: toProtoFailingTest(details.record),
        recentRuns: details.recentRuns.map(toProtoRecentRun),
      };
    },

    async getQuarantineConfig(request) {
      return app.getQuarantineConfig(requireOrg(request.org), repoOf(request.repo));
    },

    async getRepositorySettings(request) {
      const view = await app.getRepositorySettings(requireOrg(request.org), repoOf(request.repo));
      return { settings: toProtoSettings(view) };
    },

    async updateRepositorySettings(request) {
      const { org, repo, ...patch } = request;
      const view = await app.updateRepositorySettings(requireOrg(org), repoOf(repo), patch);
      return { settings: toProtoSettings(view) };
    },

    async setTestQuarantineOverride(request) {
      await app.setQuarantineOverride(
        requireOrg(request.org),
        repoOf(request.repo),
        request.testId,
        overrideOf(request.quarantineOverride),
      );
      return {};
    },

    async linkTicket(request) {
      await app.linkTicket(requireOrg(request.org), repoOf(request.repo), request.testId, request.url);
      return {};
    },

    async setCodeowners(request) {
      return app.setCodeowners(requireOrg(request.org), repoOf(request.repo), request.content);
    },
  };
}

/** The request as a typed query, checked once; errors name the spec's fields. */
function listQueryOf(request: ListFailingTestsRequest): ListFailingTestsQuery {
  if (request.pageQuery === undefined) throw new InvalidArgumentError("page_query", "is required");
  return checkListFailingTestsQuery({
    org: request.orgUrlSlug,
    repo: repoOf(request.repo),
    startTime: request.startTime?.getTime() ?? Number.NaN,
    endTime: request.endTime?.getTime() ?? Number.NaN,
    pageSize: request.pageQuery.pageSize,
    pageToken: request.pageQuery.pageToken,
  });
}
