import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { RepoRef } from "@mainline/proto/common";
import {
  FLAKY_SETTING_RANGES,
  integerRangeRule,
  type IntRange,
  isIntegerIn,
  lowerCaseWord,
  MAX_TARGET_BRANCH_SAMPLE,
} from "@mainline/contract";
import {
  QuarantineOverride as WireOverride,
  ResultContext,
  type LinkTicketRequest,
  type ListFailingTestsRequest,
  type SetCodeownersRequest,
  type SetTestQuarantineOverrideRequest,
  type GetTestInsightsRequest,
  type GetTestTrendRequest,
  type UpdateRepositorySettingsRequest,
  type UploadTestResultsRequest,
} from "@mainline/proto/flaky";
import {
  bucketOf,
  limitOf,
  periodOf,
  checkListFailingTestsQuery,
  DEFAULT_STATUS_SETTINGS,
  sampleSizeFor,
  type ListFailingTestsQuery,
  type QuarantineOverride,
  type RepositoryRef,
  type RunContext,
  type StatusSettings,
} from "../domain/index.js";
import type { RepositorySettingsPatch } from "../app/repository-admin.js";
import type { TestResultsUpload } from "../app/test-results-upload.js";
import type { TestInsightsQuery } from "../app/test-insights.js";

/**
 * flaky-analytics' one command parser: each gRPC request becomes a typed command in the domain's words, checked
 * once here; errors name the spec's field and the rule. The handlers call it once per request; nothing after it
 * validates again (an upload's bounds excepted: JetStream uploads skip this parser, so ingestion checks them).
 */

/** The request's repository, required: "repo.host" and friends are checked by the domain. */
export function repoOf(repo: RepoRef | undefined): RepositoryRef {
  if (repo === undefined) throw new InvalidArgumentError("repo", "is required");
  return { host: repo.host, owner: repo.owner, name: repo.name };
}

export function requireOrg(org: string): string {
  if (org.trim() === "") throw new InvalidArgumentError("org", "is required (the API token's organisation)");
  return org;
}

/** The wire's context is the domain's word in upper case (string enums); none given is CI. */
export function contextOf(context: ResultContext): RunContext {
  if (context === ResultContext.UNSPECIFIED) return "ci";
  if (
    context === ResultContext.CI ||
    context === ResultContext.MERGE_QUEUE ||
    context === ResultContext.BISECTION
  )
    return lowerCaseWord(context);
  throw new InvalidArgumentError("context", "must be ci, merge_queue or bisection");
}

/** The wire's override is the domain's word (string enums); NONE clears it. */
export function overrideOf(value: WireOverride): QuarantineOverride | undefined {
  if (value === WireOverride.ALWAYS_QUARANTINE || value === WireOverride.NEVER_QUARANTINE) return value;
  if (value === WireOverride.NONE) return undefined;
  throw new InvalidArgumentError(
    "quarantine_override",
    "must be ALWAYS_QUARANTINE, NEVER_QUARANTINE or NONE (to clear)",
  );
}

const MAX_SAMPLE = MAX_TARGET_BRANCH_SAMPLE;

/**
 * Fills defaults and validates a repository's settings as they arrive from an API call or the
 * store. Throws InvalidArgumentError naming the setting and the rule it breaks.
 */
export function resolveStatusSettings(input: Readonly<Record<string, unknown>> = {}): StatusSettings {
  for (const key of Object.keys(input)) {
    if (!(key in DEFAULT_STATUS_SETTINGS))
      throw new InvalidArgumentError(key, "is not a known status setting");
  }
  const pick = <K extends keyof StatusSettings>(key: K): unknown =>
    input[key] ?? DEFAULT_STATUS_SETTINGS[key];

  const failureRateThreshold = pick("failureRateThreshold");
  if (typeof failureRateThreshold !== "number" || !(failureRateThreshold > 0 && failureRateThreshold <= 1)) {
    throw new InvalidArgumentError("failureRateThreshold", "must be a number greater than 0 and at most 1");
  }
  const minTargetBranchRuns = integerIn("minTargetBranchRuns", pick("minTargetBranchRuns"), RANGE.min_runs);
  const brokenAfterConsecutiveFailures = integerIn(
    "brokenAfterConsecutiveFailures",
    pick("brokenAfterConsecutiveFailures"),
    RANGE.broken_after_consecutive_failures,
  );
  const targetBranchSampleSize = integerIn("targetBranchSampleSize", pick("targetBranchSampleSize"), [
    1,
    MAX_SAMPLE,
  ]);
  // The sample must hold enough runs for both rules to ever fire.
  const needed = Math.max(minTargetBranchRuns, brokenAfterConsecutiveFailures);
  if (targetBranchSampleSize < needed) {
    throw new InvalidArgumentError(
      "targetBranchSampleSize",
      `must be at least minTargetBranchRuns and brokenAfterConsecutiveFailures (${needed})`,
    );
  }
  return {
    failureRateThreshold,
    minTargetBranchRuns,
    rateWindowHours: integerIn("rateWindowHours", pick("rateWindowHours"), RANGE.rate_window_hours),
    targetBranchSampleSize,
    brokenAfterConsecutiveFailures,
    quietWindowHours: integerIn("quietWindowHours", pick("quietWindowHours"), RANGE.recovery_window_hours),
    recentCommitsTracked: integerIn("recentCommitsTracked", pick("recentCommitsTracked"), [1, 200]),
  };
}

const RANGE = FLAKY_SETTING_RANGES;

function integerIn(field: string, value: unknown, range: IntRange): number {
  if (!isIntegerIn(value, range)) throw new InvalidArgumentError(field, integerRangeRule(range));
  return value;
}

export interface TestCommand {
  org: string;
  repo: RepositoryRef;
  testId: string;
}

export function requireTestId(testId: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(testId)) {
    throw new InvalidArgumentError("test_id", "must be a test id (a UUID)");
  }
  return testId;
}

export function parseTest(request: { org: string; repo?: RepoRef | undefined; testId: string }): TestCommand {
  return { org: requireOrg(request.org), repo: repoOf(request.repo), testId: requireTestId(request.testId) };
}

export function parseRepository(request: { org: string; repo?: RepoRef | undefined }): {
  org: string;
  repo: RepositoryRef;
} {
  return { org: requireOrg(request.org), repo: repoOf(request.repo) };
}

export function parseUpload(request: UploadTestResultsRequest): TestResultsUpload {
  return {
    org: requireOrg(request.org),
    repo: repoOf(request.repo),
    commitSha: request.commitSha,
    branch: request.branch,
    prNumber: request.prNumber,
    impactedPrNumbers: request.impactedPrNumbers,
    variant: request.variant,
    jobName: request.jobName,
    runStartedAt: request.runStartedAt?.getTime(),
    context: contextOf(request.context),
    junitXml: request.junitXml,
    uploadId: request.uploadId,
  };
}

/** The request as a typed query, checked once; errors name the spec's fields. */
export function parseListFailingTests(request: ListFailingTestsRequest): {
  org: string;
  query: ListFailingTestsQuery;
} {
  const org = requireOrg(request.org);
  if (request.pageQuery === undefined) throw new InvalidArgumentError("page_query", "is required");
  return {
    org,
    query: checkListFailingTestsQuery({
      org: request.orgUrlSlug,
      repo: repoOf(request.repo),
      startTime: request.startTime?.getTime() ?? Number.NaN,
      endTime: request.endTime?.getTime() ?? Number.NaN,
      pageSize: request.pageQuery.pageSize,
      pageToken: request.pageQuery.pageToken,
    }),
  };
}

/** Domain setting name -> the API's field name, so a refused value names what the caller sent. */
const API_FIELD: Record<string, string> = {
  failureRateThreshold: "flaky_failure_rate_threshold",
  minTargetBranchRuns: "min_runs",
  rateWindowHours: "rate_window_hours",
  quietWindowHours: "recovery_window_hours",
  brokenAfterConsecutiveFailures: "broken_after_consecutive_failures",
};

/** The settings a request changes, each checked by the status rules; errors use the API's names. */
export function parseSettingsUpdate(request: UpdateRepositorySettingsRequest): {
  org: string;
  repo: RepositoryRef;
  patch: RepositorySettingsPatch;
} {
  const { org, repo, brokenFailureRateThreshold, defaultBranch, ...settings } = request;
  const target = parseRepository({ org, repo });
  if (brokenFailureRateThreshold !== undefined) {
    throw new InvalidArgumentError(
      "broken_failure_rate_threshold",
      "is not supported: broken is judged by broken_after_consecutive_failures",
    );
  }
  if (defaultBranch !== undefined && defaultBranch.trim() === "") {
    throw new InvalidArgumentError("default_branch", "must be a non-empty branch name");
  }
  const status = defined({
    failureRateThreshold: settings.flakyFailureRateThreshold,
    minTargetBranchRuns: settings.minRuns,
    rateWindowHours: settings.rateWindowHours,
    quietWindowHours: settings.recoveryWindowHours,
    brokenAfterConsecutiveFailures: settings.brokenAfterConsecutiveFailures,
  });
  try {
    // The sample is not exposed: it grows with the rules (repository-admin.ts), so only each field is checked.
    resolveStatusSettings({
      ...status,
      targetBranchSampleSize: sampleSizeFor({ ...DEFAULT_STATUS_SETTINGS, ...status }),
    });
  } catch (error) {
    if (error instanceof InvalidArgumentError) {
      throw new InvalidArgumentError(API_FIELD[error.field] ?? error.field, error.rule);
    }
    throw error;
  }
  return {
    ...target,
    patch: defined({
      ...settings,
      ...(defaultBranch !== undefined && { defaultBranch: defaultBranch.trim() }),
    }),
  };
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function parseSetOverride(request: SetTestQuarantineOverrideRequest): TestCommand & {
  override: QuarantineOverride | undefined;
} {
  return { ...parseTest(request), override: overrideOf(request.quarantineOverride) };
}

const MAX_TICKET_URL = 2048;

/** An empty url unlinks the ticket. */
export function parseLinkTicket(request: LinkTicketRequest): TestCommand & { url: string } {
  const command = parseTest(request);
  const url = request.url.trim();
  if (url !== "") {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || url.length > MAX_TICKET_URL) {
      throw new InvalidArgumentError("url", "must be an absolute http(s) URL of at most 2048 characters");
    }
  }
  return { ...command, url };
}

const MAX_CODEOWNERS_BYTES = 3 * 1024 * 1024;

export function parseSetCodeowners(request: SetCodeownersRequest): {
  org: string;
  repo: RepositoryRef;
  content: string;
} {
  const target = parseRepository(request);
  if (Buffer.byteLength(request.content) > MAX_CODEOWNERS_BYTES) {
    throw new InvalidArgumentError("content", "must be at most 3 MiB (GitHub's limit for CODEOWNERS)");
  }
  return { ...target, content: request.content };
}

export function parseTestInsights(request: GetTestInsightsRequest): TestInsightsQuery {
  return {
    ...parseRepository(request),
    period: periodOf(request.period),
    bucket: bucketOf(request.bucket),
    cursor: request.cursor,
    limit: limitOf(request.limit),
  };
}

export function parseTestTrend(request: GetTestTrendRequest) {
  return { ...parseTest(request), period: periodOf(request.period), bucket: bucketOf(request.bucket) };
}
