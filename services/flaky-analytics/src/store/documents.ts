import type {
  FailureGroup,
  HourlyBucket,
  QuarantineOverride,
  RepositoryRef,
  StatusSettings,
  TestEvidence,
  TestStatus,
} from "../domain/index.js";

/**
 * One test of one repository, keyed by its stable id. Everything the failing-test record shows
 * is kept here in bounded form (hour buckets, failure groups, status evidence), updated at ingest.
 */
export interface TestDocument {
  _id: string;
  org: string;
  /** canonical "host/owner/name"; with org, the scope of every query. */
  repoKey: string;
  repo: RepositoryRef;
  name: string;
  variant: string;
  file?: string;
  classname?: string;
  parent?: string;
  status: TestStatus;
  evidence: TestEvidence;
  buckets: HourlyBucket[];
  failureGroups: FailureGroup[];
  quarantineOverride?: QuarantineOverride;
  ticketUrl?: string;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Uploads already folded in (most recent last): a re-applied upload skips this test. */
  recentUploads: string[];
  /** A status change committed with this document but not yet published (the outbox, DESIGN rule 4). */
  pendingStatusEvent?: PendingStatusEvent;
}

export interface PendingStatusEvent {
  eventId: string;
  from: TestStatus["value"] | undefined;
  to: TestStatus;
}

/**
 * The failures of one test in one UTC hour. list-failing-tests is a range scan over these by
 * (org, repository, hour); `times` makes the boundary hours of a window exact.
 */
export interface FailureHourDocument {
  /** "<testId>:<hour>" */
  _id: string;
  org: string;
  repoKey: string;
  testId: string;
  hour: number;
  /** "<org>\n<repoKey>\n<hour, 15 digits>": one sortable key, so the window is one index range. */
  scopeHour: string;
  /** Distinct failure times (epoch ms) in the hour; a set, so re-applying an upload adds nothing. */
  times: number[];
}

/** Per-repository settings and CODEOWNERS; absent until first changed (defaults apply). */
export interface RepositoryDocument {
  /** "<org>\n<repoKey>" */
  _id: string;
  org: string;
  repoKey: string;
  repo: RepositoryRef;
  quarantiningEnabled: boolean;
  autoQuarantineEnabled: boolean;
  defaultBranch: string;
  status: StatusSettings;
  codeowners?: string;
  updatedAt: number;
}

/** An upload that was fully applied; its id makes a repeated upload (or redelivery) a no-op. */
export interface UploadDocument {
  /** "<org>\n<uploadId>" */
  _id: string;
  org: string;
  repoKey: string;
  uploadId: string;
  appliedAt: number;
  summary: UploadSummary;
}

export interface UploadSummary {
  files: number;
  results: number;
  passed: number;
  failed: number;
  skipped: number;
  newTests: number;
}
