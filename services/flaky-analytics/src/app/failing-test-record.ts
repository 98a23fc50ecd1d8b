import { isQuarantined, judgeStatus, mostCommonFailures, testFigures } from "../domain/index.js";
import type { Codeowners, FailureGroup, QuarantineOverride, TestStatus } from "../domain/index.js";
import type { RepositoryDocument, TestDocument } from "../store/documents.js";
import type { Links } from "./links.js";

/** The spec's failing test record, in domain units (epoch ms); the API layer spells it out. */
export interface FailingTestRecord {
  id: string;
  repositoryUrl: string;
  htmlUrl: string;
  name: string;
  variant: string;
  status: TestStatus;
  mostCommonFailures: FailureGroup[];
  failureRateLast7d: number;
  failureRateLast24h: number;
  filePath?: string | undefined;
  parent?: string | undefined;
  classname?: string | undefined;
  codeowners: string[];
  pullRequestsImpactedLast7d: number;
  quarantined: boolean;
  /** The override set on the test; undefined when automatic quarantining decides. */
  quarantineOverride?: QuarantineOverride | undefined;
  ticketUrl?: string | undefined;
}

const MOST_COMMON_FAILURES = 5;

/**
 * Builds a record at `now`. The status is judged again at read time, so a flaky test whose quiet
 * window ended since its last result already reads healthy.
 */
export function failingTestRecord(
  doc: TestDocument,
  repository: RepositoryDocument,
  codeowners: Codeowners,
  links: Links,
  now: number,
): FailingTestRecord {
  const status = currentStatus(doc, repository, now);
  const figures = testFigures(doc.buckets, now);
  return {
    id: doc._id,
    repositoryUrl: links.repository(doc.repo),
    htmlUrl: links.test(doc.org, doc.repo, doc._id),
    name: doc.name,
    variant: doc.variant,
    status,
    mostCommonFailures: mostCommonFailures(doc.failureGroups, MOST_COMMON_FAILURES),
    failureRateLast7d: figures.failure_rate_last_7d,
    failureRateLast24h: figures.failure_rate_last_24h,
    filePath: doc.file,
    parent: doc.parent,
    classname: doc.classname,
    codeowners: doc.file ? codeowners.ownersOf(doc.file) : [],
    pullRequestsImpactedLast7d: figures.pull_requests_impacted_last_7d,
    quarantined: isQuarantined(repository, doc.quarantineOverride, status.value),
    quarantineOverride: doc.quarantineOverride,
    ticketUrl: doc.ticketUrl,
  };
}

export function currentStatus(
  doc: Pick<TestDocument, "status" | "evidence">,
  repository: RepositoryDocument,
  now: number,
): TestStatus {
  return judgeStatus(doc.status, doc.evidence, repository.status, Math.max(now, doc.status.timestamp)).status;
}
