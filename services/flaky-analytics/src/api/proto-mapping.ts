import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { RepoRef } from "@mainline/proto/common";
import { QuarantineOverride, ResultContext, TestStatus } from "@mainline/proto/flaky";
import type { FailingTest, RecentTestRun, RepositorySettings } from "@mainline/proto/flaky";
import type {
  QuarantineOverride as DomainOverride,
  RecentRun,
  RepositoryRef,
  RunContext,
  TestStatusValue,
} from "../domain/index.js";
import type { FailingTestRecord } from "../app/failing-test-record.js";
import type { RepositorySettingsView } from "../app/repository-admin.js";

/** The request's repository, required: "repo.host" and friends are checked by the domain. */
export function repoOf(repo: RepoRef | undefined): RepositoryRef {
  if (repo === undefined) throw new InvalidArgumentError("repo", "is required");
  return { host: repo.host, owner: repo.owner, name: repo.name };
}

export function requireOrg(org: string): string {
  if (org.trim() === "") throw new InvalidArgumentError("org", "is required (the API token's organisation)");
  return org;
}

export function contextOf(context: ResultContext): RunContext {
  switch (context) {
    case ResultContext.UNSPECIFIED:
    case ResultContext.CI:
      return "ci";
    case ResultContext.MERGE_QUEUE:
      return "merge_queue";
    case ResultContext.BISECTION:
      return "bisection";
    default:
      throw new InvalidArgumentError("context", "must be ci, merge_queue or bisection");
  }
}

export function toProtoRecentRun(run: RecentRun): RecentTestRun {
  return {
    at: new Date(run.at),
    outcome: run.outcome,
    // The domain's context in the wire's word: the same word, upper case (string enums).
    context: ResultContext[run.context.toUpperCase() as Uppercase<RunContext>],
    branch: run.branch,
    commitSha: run.commitSha,
    ...(run.prNumber !== undefined ? { prNumber: run.prNumber } : {}),
  };
}

/** The domain's status in the wire's word: the same word, upper case (string enums). */
export function toProtoStatus(value: TestStatusValue | undefined): TestStatus {
  return value === undefined
    ? TestStatus.UNSPECIFIED
    : TestStatus[value.toUpperCase() as Uppercase<TestStatusValue>];
}

export function overrideOf(value: QuarantineOverride): DomainOverride | undefined {
  switch (value) {
    case QuarantineOverride.ALWAYS_QUARANTINE:
      return "ALWAYS_QUARANTINE";
    case QuarantineOverride.NEVER_QUARANTINE:
      return "NEVER_QUARANTINE";
    case QuarantineOverride.NONE:
      return undefined;
    default:
      throw new InvalidArgumentError(
        "quarantine_override",
        "must be ALWAYS_QUARANTINE, NEVER_QUARANTINE or NONE (to clear)",
      );
  }
}

export function toProtoOverride(value: DomainOverride | undefined): QuarantineOverride {
  switch (value) {
    case "ALWAYS_QUARANTINE":
      return QuarantineOverride.ALWAYS_QUARANTINE;
    case "NEVER_QUARANTINE":
      return QuarantineOverride.NEVER_QUARANTINE;
    default:
      return QuarantineOverride.NONE;
  }
}

export function toProtoFailingTest(record: FailingTestRecord): FailingTest {
  return {
    id: record.id,
    repository: { htmlUrl: record.repositoryUrl },
    htmlUrl: record.htmlUrl,
    name: record.name,
    variant: record.variant,
    status: {
      value: toProtoStatus(record.status.value),
      reason: record.status.reason,
      timestamp: new Date(record.status.timestamp),
    },
    mostCommonFailures: record.mostCommonFailures.map((group) => ({
      summary: group.summary,
      occurrenceCount: group.count,
      lastOccurrence: new Date(group.lastOccurrence),
    })),
    failureRateLast7d: record.failureRateLast7d,
    failureRateLast24h: record.failureRateLast24h,
    filePath: record.filePath,
    parent: record.parent,
    classname: record.classname,
    codeowners: record.codeowners,
    pullRequestsImpactedLast7d: record.pullRequestsImpactedLast7d,
    quarantined: record.quarantined,
    quarantineOverride: toProtoOverride(record.quarantineOverride),
    ticket: record.ticketUrl === undefined ? undefined : { htmlUrl: record.ticketUrl },
  };
}

export function toProtoSettings(view: RepositorySettingsView): RepositorySettings {
  return { ...view, brokenFailureRateThreshold: 0 };
}
