import type {
  DailyCosts,
  FailureGroup,
  HourlyBuckets,
  IgnoredTestCase,
  QuarantineOverride,
  RecentRuns,
  RepositoryRef,
  RunContext,
  StatusChanges,
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
 *   journal          one per journal entry, keyed by repository and position: an upload (its first part)
 *                    or an annotation. Writing it commits the entry; several replicas append to one
 *                    journal, and the key makes a position taken by another replica a lost race.
 *   uploads          one per upload id: which journal entry applied it (a repeated upload id changes
 *                    nothing), its summary and published status events. Entries written before the
 *                    journal collection existed are kept here (`journal`) until a snapshot covers them.
 *   upload_parts     the rest of an upload entry too big for one document (written before the commit)
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
  /** Packed (HourlyBuckets); snapshots of before hold a list of bucket objects, unpacked on read. */
  buckets: HourlyBuckets;
  failureGroups: FailureGroup[];
  /** Distinct failure times (epoch ms), ascending: list-failing-tests windows are exact to the millisecond. */
  failureTimes: number[];
  /** Runs, failures and costs per day over 90 days (insights); absent in tests stored before. */
  days?: DailyCosts;
  /** Status changes over 90 days (insights); absent until the status first changes: `status` alone says it. */
  statusChanges?: StatusChanges;
  /** The latest runs (RECENT_RUNS_KEPT, oldest first), for the test's page; absent in tests stored before. */
  recentRuns?: RecentRuns;
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
  /** Milliseconds spent on failed attempts that were retried (time lost to retries); absent when none. */
  retryMs?: number;
}

export interface TestIdentityFields {
  name: string;
  file?: string;
  classname?: string;
  parent?: string;
}

export type UploadEntryHeader = Omit<UploadEntry, "runs">;

/** A person's decision about one test, in the journal so that every replica applies it in order. */
export interface AnnotationEntry {
  testId: string;
  /** A value sets the field, null clears it, absent leaves it. */
  quarantineOverride?: QuarantineOverride | null;
  ticketUrl?: string | null;
}

/** One position of a repository's journal: an upload or an annotation. */
export interface JournalEntryDocument {
  /** "<org>\n<repoKey>\n<seq>" */
  _id: string;
  org: string;
  repoKey: string;
  /** Position in the repository's journal: 1, 2, ... */
  seq: number;
  /** The replica's write that took this position: its parts carry the same mark. */
  writer: string;
  upload?: {
    uploadId: string;
    summary: UploadSummary;
    appliedAt: number;
    header: UploadEntryHeader;
    parts: number;
    first: string;
  };
  annotation?: AnnotationEntry;
}

/** An upload that was applied; its id makes a repeated upload (or a redelivery) a no-op. */
export interface UploadDocument {
  /** "<org>\n<uploadId>" */
  _id: string;
  org: string;
  repoKey: string;
  uploadId: string;
  appliedAt: number;
  summary: UploadSummary;
  /** The journal entry that applied it (a later entry with the same upload id is a duplicate). */
  seq: number;
  /** Before the journal collection: the journal entry, until a snapshot contains the upload. */
  journal?: { header: UploadEntryHeader; parts: number; first: string };
  /** Status events of this upload already published (so a replay does not publish them again). */
  publishedEvents?: string[];
}

/** Parts 1.. of an upload entry (part 0 is in the journal document). */
export interface UploadPartDocument {
  /** "<org>\n<repoKey>\n<seq>\n<writer>\n<part>" ("<org>\n<repoKey>\n<seq>\n<part>" before writers) */
  _id: string;
  org: string;
  repoKey: string;
  seq: number;
  /** The write the part belongs to: two replicas racing for one position never mix their parts. */
  writer?: string;
  part: number;
  data: string;
}

/** The current snapshot of a repository's tests: written last, so it only ever names complete parts. */
export interface SnapshotDocument {
  /** "<org>\n<repoKey>" */
  _id: string;
  org: string;
  repoKey: string;
  /** The journal position it was taken at (a counter before replicas); grows with every snapshot. */
  generation: number;
  /** The replica's write: two replicas snapshotting one position never mix their parts. */
  writer?: string;
  /** The last journal entry the snapshot contains. */
  seq: number;
  parts: number;
  tests: number;
  takenAt: number;
  /** Annotations reach tests through the journal (absent in snapshots of before: test_annotations then). */
  annotationsJournaled?: boolean;
  /** The repository's runs per hour (RepositoryTrend) after `seq`; absent in snapshots of before. */
  trend?: number[];
}

export interface SnapshotPartDocument {
  /** "<org>\n<repoKey>\n<generation>\n<writer>\n<part>" ("...<generation>\n<part>" before writers) */
  _id: string;
  org: string;
  repoKey: string;
  generation: number;
  writer?: string;
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
