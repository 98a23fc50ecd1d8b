import type {
  FailureGroup,
  HourlyBucket,
  IgnoredTestCase,
  QuarantineOverride,
  RecentRun,
  RepositoryRef,
  RunContext,
  StatusSettings,
  TestEvidence,
  TestOutcome,
  TestStatus,
} from "../domain/index.js";

/**
 * The storage layout (one writer: this service, DESIGN rule 1). A repository's tests live in the
 * service's memory (its TestIndex); what makes them durable is a journal of uploads plus, now and
 * then, a snapshot of every test. Ingest writes one small entry per upload instead of one document
 * per test, which is what lets it keep up with tens of thousands of results per second:
 *
 *   uploads          one per upload: the summary (a repeated upload id changes nothing) and, until a
 *                    snapshot covers it, the upload's journal entry. Writing it commits the upload.
 *   upload_parts     the rest of a journal entry too big for one document (written before the commit)
 *   snapshots        one per repository: which snapshot is current and the last upload it contains
 *   snapshot_parts   the packed tests of a snapshot
 *   test_annotations quarantine overrides and ticket links, written as they are set
 *   repositories     settings and CODEOWNERS
 */

/**
 * One test of one repository, keyed by its stable id: everything the failing-test record shows, in
 * bounded form (hour buckets, failure groups, status evidence) plus its failure times. It is what a
 * snapshot holds per test; the test index keeps one in memory per test.
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
  /** Distinct failure times (epoch ms), ascending: list-failing-tests windows are exact to the millisecond. */
  failureTimes: number[];
  /** The latest runs (RECENT_RUNS_KEPT, oldest first), for the test's page; absent in tests stored before. */
  recentRuns?: RecentRun[];
  quarantineOverride?: QuarantineOverride;
  ticketUrl?: string;
  firstSeenAt: number;
  lastSeenAt: number;
  /** A status change committed but not yet published (the outbox, DESIGN rule 4). */
  pendingStatusEvent?: PendingStatusEvent;
}

export interface PendingStatusEvent {
  eventId: string;
  from: TestStatus["value"] | undefined;
  to: TestStatus;
  /** The upload whose journal entry made the change: publishing is recorded there. */
  uploadId?: string;
}

/** What one upload changes, as the journal keeps it: everything needed to fold it again, identically. */
export interface UploadEntry {
  uploadId: string;
  repo: RepositoryRef;
  commitSha: string;
  branch: string;
  prNumber?: number;
  /** A batch's PRs (prNumber is unset then): each is impacted by a test that failed the run. */
  impactedPrNumbers?: number[];
  variant: string;
  context: RunContext;
  /** When the results happened and when the upload was applied (epoch ms). */
  at: number;
  now: number;
  /** The repository's settings when the upload was applied: a replay must judge as ingest did. */
  defaultBranch: string;
  status: StatusSettings;
  runs: EntryRun[];
}

/** One test's part of an upload: its case results folded into one run (reruns are attempts). */
export interface EntryRun {
  id: string;
  /** Outcome of each attempt, in report order. */
  outcomes: TestOutcome[];
  /** The failure message of each attempt (null for attempts that did not fail, or said nothing). */
  failures: (string | null)[];
  /** Present when the repository did not know the test yet: what its record shows. */
  identity?: TestIdentityFields;
}

export interface TestIdentityFields {
  name: string;
  file?: string;
  classname?: string;
  parent?: string;
}

export type UploadEntryHeader = Omit<UploadEntry, "runs">;

/** An upload that was applied; its id makes a repeated upload (or a redelivery) a no-op. */
export interface UploadDocument {
  /** "<org>\n<uploadId>" */
  _id: string;
  org: string;
  repoKey: string;
  uploadId: string;
  appliedAt: number;
  summary: UploadSummary;
  /** Position in the repository's journal: 1, 2, ... */
  seq: number;
  /** The journal entry, until a snapshot contains the upload. */
  journal?: { header: UploadEntryHeader; parts: number; first: string };
  /** Status events of this upload already published (so a replay does not publish them again). */
  publishedEvents?: string[];
}

/** Parts 1.. of a journal entry (part 0 is in the upload document). */
export interface UploadPartDocument {
  /** "<org>\n<repoKey>\n<seq>\n<part>" */
  _id: string;
  org: string;
  repoKey: string;
  seq: number;
  part: number;
  data: string;
}

/** The current snapshot of a repository's tests: written last, so it only ever names complete parts. */
export interface SnapshotDocument {
  /** "<org>\n<repoKey>" */
  _id: string;
  org: string;
  repoKey: string;
  /** Grows by one per snapshot, so a new snapshot never overwrites the parts of the current one. */
  generation: number;
  /** The last journal entry the snapshot contains. */
  seq: number;
  parts: number;
  tests: number;
  takenAt: number;
}

export interface SnapshotPartDocument {
  /** "<org>\n<repoKey>\n<generation>\n<part>" */
  _id: string;
  org: string;
  repoKey: string;
  generation: number;
  part: number;
  data: string;
}

/** What people decided about a test: kept apart from what results say, and applied over it. */
export interface TestAnnotationDocument {
  /** "<org>\n<repoKey>\n<testId>" */
  _id: string;
  org: string;
  repoKey: string;
  testId: string;
  quarantineOverride?: QuarantineOverride;
  ticketUrl?: string;
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

export interface UploadSummary {
  files: number;
  results: number;
  passed: number;
  failed: number;
  skipped: number;
  newTests: number;
  /** Test cases left out (unreadable), and the first 100 of them; absent in older uploads. */
  ignored?: number;
  ignoredTestcases?: IgnoredTestCase[];
}
