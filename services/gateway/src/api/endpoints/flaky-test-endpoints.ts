import {
  lowerCaseWord,
  type RecentRunOutcome,
  type ResultContext as ApiResultContext,
  type TestStatus as ApiTestStatus,
} from "@mainline/contract";
import { z } from "zod";
import { InternalError } from "@mainline/kit/errors/index";
import { callUnary } from "@mainline/kit/grpc/index";
import { QuarantineOverride, ResultContext, TestStatus } from "@mainline/proto/flaky";
import type { FailingTest, RepositorySettings } from "@mainline/proto/flaky";
import { endpoint, type Endpoint } from "../endpoint.js";
import {
  getTestRequest,
  getTestResponse,
  linkTicketRequest,
  listFailingTestsRequest,
  listFailingTestsResponse,
  quarantineConfigResponse,
  repoRequest,
  repositorySettings,
  setCodeownersRequest,
  setCodeownersResponse,
  setQuarantineOverrideRequest,
  updateRepositorySettingsRequest,
  uploadTestResultsRequest,
  uploadTestResultsResponse,
} from "../schemas/flaky-tests.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const TAG = "Flaky tests";
const empty = z.object({});

/** The spec writes test statuses lower case; the wire's words are upper case (string enums). */
function statusName(status: TestStatus | undefined): ApiTestStatus {
  return status === TestStatus.FLAKY || status === TestStatus.BROKEN ? lowerCaseWord(status) : "healthy";
}

/** The REST context is the wire's word (string enums); none given is CI. */
function contextName(context: ResultContext): ApiResultContext {
  return context === ResultContext.MERGE_QUEUE || context === ResultContext.BISECTION ? context : "CI";
}

/** The flaky-test endpoints; every call is scoped to the organisation of the API token. */
export function flakyTestEndpoints(up: Upstreams): Endpoint[] {
  const f = up.flaky;
  return [
    endpoint({
      method: "post",
      path: "/flaky-tests/list-failing-tests",
      operationId: "listFailingTests",
      summary:
        "The distinct tests that failed in [start_time, end_time), with status, figures, owners and quarantine",
      tag: TAG,
      access: "org",
      input: listFailingTestsRequest,
      inputIn: "body",
      output: listFailingTestsResponse,
      async handle(input, { principal }) {
        // The service checks org_url_slug against the token's organisation (401 when they differ).
        const response = await callUnary(f.listFailingTests.bind(f), {
          org: principal.org,
          orgUrlSlug: input.org_url_slug,
          repo: input.repo,
          startTime: new Date(input.start_time),
          endTime: new Date(input.end_time),
          pageQuery: { pageSize: input.page_query.page_size, pageToken: input.page_query.page_token ?? "" },
        });
        const page = response.page;
        return {
          tests: response.tests.map(failingTestToJson),
          page: {
            total_rows: page?.totalRows ?? 0,
            total_pages: page?.totalPages ?? 0,
            next_page_token: page?.nextPageToken ?? "",
            prev_page_token: page?.prevPageToken ?? "",
            last_page_token: page?.lastPageToken ?? "",
            page_index: page?.pageIndex ?? 0,
          },
        };
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/upload",
      operationId: "uploadTestResults",
      summary:
        "Upload JUnit XML results of one CI job: `junit` is an array of XML documents as strings; " +
        "context is ci (default), merge_queue or bisection. Malformed XML is a 400 naming the file " +
        "(junit[i]) and the line, and nothing of the upload is stored.",
      tag: TAG,
      access: "org",
      input: uploadTestResultsRequest,
      inputIn: "body",
      output: uploadTestResultsResponse,
      async handle(input, { principal }) {
        const response = await callUnary(f.uploadTestResults.bind(f), {
          org: principal.org,
          repo: input.repo,
          commitSha: input.commit_sha.toLowerCase(),
          branch: input.branch,
          prNumber: input.pr_number,
          // A CI job tests one PR (pr_number); only the merge queue's batches name several.
          impactedPrNumbers: [],
          variant: input.variant ?? "",
          jobName: input.job_name ?? "",
          runStartedAt: input.run_started_at ? new Date(input.run_started_at) : undefined,
          context: ResultContext[input.context ?? "CI"],
          junitXml: input.junit,
          uploadId: input.upload_id,
        });
        return {
          upload_id: response.uploadId,
          files: response.files,
          results: response.results,
          passed: response.passed,
          failed: response.failed,
          skipped: response.skipped,
          new_tests: response.newTests,
          ignored: response.ignored,
          ignored_testcases: response.ignoredTestcases,
        };
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/get-quarantine-config",
      operationId: "getQuarantineConfig",
      summary:
        "Whether quarantining is on for the repository, and the ids of the tests quarantined now (for CI wrappers)",
      tag: TAG,
      access: "org",
      input: repoRequest,
      inputIn: "body",
      output: quarantineConfigResponse,
      async handle(input, { principal }) {
        const response = await callUnary(f.getQuarantineConfig.bind(f), {
          org: principal.org,
          repo: input.repo,
        });
        return { isDisabled: response.isDisabled, testIds: response.testIds };
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/get-repository-settings",
      operationId: "getFlakyRepositorySettings",
      summary: "The repository's quarantine switches and status-rule thresholds",
      tag: TAG,
      access: "org",
      input: repoRequest,
      inputIn: "body",
      output: repositorySettings,
      async handle(input, { principal }) {
        const response = await callUnary(f.getRepositorySettings.bind(f), {
          org: principal.org,
          repo: input.repo,
        });
        return settingsToJson(response.settings);
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/update-repository-settings",
      operationId: "updateFlakyRepositorySettings",
      summary: "Change some of the repository's settings; absent fields keep their value",
      tag: TAG,
      access: "org",
      input: updateRepositorySettingsRequest,
      inputIn: "body",
      output: repositorySettings,
      async handle(input, { principal }) {
        const response = await callUnary(f.updateRepositorySettings.bind(f), {
          org: principal.org,
          repo: input.repo,
          quarantiningEnabled: input.quarantining_enabled,
          autoQuarantineEnabled: input.auto_quarantine_enabled,
          flakyFailureRateThreshold: input.flaky_failure_rate_threshold,
          minRuns: input.min_runs,
          rateWindowHours: input.rate_window_hours,
          recoveryWindowHours: input.recovery_window_hours,
          defaultBranch: input.default_branch,
          brokenAfterConsecutiveFailures: input.broken_after_consecutive_failures,
        });
        return settingsToJson(response.settings);
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/set-quarantine-override",
      operationId: "setTestQuarantineOverride",
      summary:
        "Force a test in or out of quarantine (ALWAYS_QUARANTINE, NEVER_QUARANTINE), or clear with NONE / null",
      tag: TAG,
      access: "org",
      input: setQuarantineOverrideRequest,
      inputIn: "body",
      output: empty,
      async handle(input, { principal }) {
        const override = input.override ? QuarantineOverride[input.override] : QuarantineOverride.NONE;
        await callUnary(f.setTestQuarantineOverride.bind(f), {
          org: principal.org,
          repo: input.repo,
          testId: input.test_id,
          quarantineOverride: override,
        });
        return {};
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/get-test",
      operationId: "getTest",
      summary:
        "One test: its record (as list-failing-tests gives it, whether or not it failed lately) and its latest runs; 404 for a test the repository does not know",
      tag: TAG,
      access: "org",
      input: getTestRequest,
      inputIn: "body",
      output: getTestResponse,
      async handle(input, { principal }) {
        const response = await callUnary(f.getTest.bind(f), {
          org: principal.org,
          repo: input.repo,
          testId: input.test_id,
        });
        if (!response.test) throw new InternalError("flaky-analytics answered GetTest without the test");
        return {
          test: failingTestToJson(response.test),
          recent_runs: response.recentRuns.map((run) => ({
            at: (run.at ?? new Date(0)).toISOString(),
            outcome: run.outcome as RecentRunOutcome,
            context: contextName(run.context),
            branch: run.branch,
            commit_sha: run.commitSha,
            ...(run.prNumber !== undefined ? { pr_number: run.prNumber } : {}),
          })),
        };
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/link-ticket",
      operationId: "linkTestTicket",
      summary: "Link a ticket URL to a test (shown as ticket.html_url); an empty url removes it",
      tag: TAG,
      access: "org",
      input: linkTicketRequest,
      inputIn: "body",
      output: empty,
      async handle(input, { principal }) {
        await callUnary(f.linkTicket.bind(f), {
          org: principal.org,
          repo: input.repo,
          testId: input.test_id,
          url: input.url,
        });
        return {};
      },
    }),
    endpoint({
      method: "post",
      path: "/flaky-tests/set-codeowners",
      operationId: "setCodeowners",
      summary: "Upload the repository's CODEOWNERS file (GitHub rules: the last matching pattern wins)",
      tag: TAG,
      access: "org",
      input: setCodeownersRequest,
      inputIn: "body",
      output: setCodeownersResponse,
      async handle(input, { principal }) {
        const response = await callUnary(f.setCodeowners.bind(f), {
          org: principal.org,
          repo: input.repo,
          content: input.content,
        });
        return { rules: response.rules, problems: response.problems };
      },
    }),
  ];
}

function failingTestToJson(test: FailingTest): z.infer<typeof listFailingTestsResponse>["tests"][number] {
  return {
    id: test.id,
    repository: { html_url: test.repository?.htmlUrl ?? "" },
    html_url: test.htmlUrl,
    name: test.name,
    variant: test.variant,
    status: {
      value: statusName(test.status?.value),
      reason: test.status?.reason ?? "",
      timestamp: (test.status?.timestamp ?? new Date(0)).toISOString(),
    },
    most_common_failures: test.mostCommonFailures.map((failure) => ({
      summary: failure.summary,
      occurrence_count: failure.occurrenceCount,
      ...(failure.lastOccurrence ? { last_occurrence: failure.lastOccurrence.toISOString() } : {}),
    })),
    failure_rate_last_7d: test.failureRateLast7d,
    failure_rate_last_24h: test.failureRateLast24h,
    ...(test.filePath !== undefined ? { file_path: test.filePath } : {}),
    ...(test.parent !== undefined ? { parent: test.parent } : {}),
    ...(test.classname !== undefined ? { classname: test.classname } : {}),
    codeowners: test.codeowners,
    pull_requests_impacted_last_7d: test.pullRequestsImpactedLast7d,
    quarantined: test.quarantined,
    quarantine_override:
      test.quarantineOverride === QuarantineOverride.ALWAYS_QUARANTINE ||
      test.quarantineOverride === QuarantineOverride.NEVER_QUARANTINE
        ? test.quarantineOverride
        : "NONE",
    ...(test.ticket ? { ticket: { html_url: test.ticket.htmlUrl } } : {}),
  };
}

function settingsToJson(settings: RepositorySettings | undefined): z.infer<typeof repositorySettings> {
  if (!settings) throw new Error("flaky-analytics answered without settings");
  return {
    quarantining_enabled: settings.quarantiningEnabled,
    auto_quarantine_enabled: settings.autoQuarantineEnabled,
    flaky_failure_rate_threshold: settings.flakyFailureRateThreshold,
    min_runs: settings.minRuns,
    rate_window_hours: settings.rateWindowHours,
    recovery_window_hours: settings.recoveryWindowHours,
    default_branch: settings.defaultBranch,
    broken_after_consecutive_failures: settings.brokenAfterConsecutiveFailures,
  };
}
