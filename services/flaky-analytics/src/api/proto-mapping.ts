import { upperCaseWord } from "@mainline/contract";
import { QuarantineOverride, ResultContext, TestStatus } from "@mainline/proto/flaky";
import type { FailingTest, RecentTestRun, RepositorySettings } from "@mainline/proto/flaky";
import type { QuarantineOverride as DomainOverride, RecentRun, TestStatusValue } from "../domain/index.js";
import type { FailingTestRecord } from "../app/failing-test-record.js";
import type { RepositorySettingsView } from "../app/repository-admin.js";

export function toProtoRecentRun(run: RecentRun): RecentTestRun {
  return {
    at: new Date(run.at),
    outcome: run.outcome,
    // The domain's context in the wire's word: the same word, upper case (string enums).
    context: ResultContext[upperCaseWord(run.context)],
    branch: run.branch,
    commitSha: run.commitSha,
    ...(run.prNumber !== undefined ? { prNumber: run.prNumber } : {}),
  };
}

/** The domain's status in the wire's word: the same word, upper case (string enums). */
export function toProtoStatus(value: TestStatusValue | undefined): TestStatus {
  return value === undefined ? TestStatus.UNSPECIFIED : TestStatus[upperCaseWord(value)];
}

/** The wire's override is the domain's word (string enums); no override is NONE. */
export function toProtoOverride(value: DomainOverride | undefined): QuarantineOverride {
  return value === undefined ? QuarantineOverride.NONE : QuarantineOverride[value];
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
