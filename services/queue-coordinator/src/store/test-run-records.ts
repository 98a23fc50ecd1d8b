import type { Collection, Store } from "@mainline/kit/store/index";

import { type RunKind, type TestRunStatus } from "@mainline/contract";

export type TestRunRecordStatus = TestRunStatus;

/** An external CI's verdict on a run, as reported through the API. */
export interface TestRunReport {
  passed: boolean;
  junitXml: string[];
  detailsUrl?: string;
  /** The statuses that decided it, when a code host's CI statuses carried the verdict; kept on the record. */
  statusChecks?: { context: string; url: string; state: string }[];
}

/** What getMergeQueueTestingDetails reports about one test run, from the job and its result. */
export interface TestRunRecord {
  _id: string;
  queueKey: string;
  runId: string;
  kind: RunKind;
  /** Run by the batch-runner (true), or reported by an external CI through the API only (false). */
  viaRunner: boolean;
  prs: number[];
  dependentPrs: number[];
  titles: Record<string, string>;
  impactedTargets: { all: boolean; targets: string[] };
  impactedTargetsForTestedPrs: { all: boolean; targets: string[] };
  requiredStatuses: string[];
  createdAt: string;
  status: TestRunRecordStatus;
  testBranch: string;
  testBranchSha: string;
  commits: Record<string, string>;
  /** suite: a check suite's or workflow run's result (code-host CI), as the required-statuses rule reads them. */
  statusChecks: { context: string; url: string; state: string; suite?: boolean }[];
  finishedAt: string | null;
  /**
   * A report that arrived before the batch-runner's push notice was read: the run's commits are not known yet,
   * so it waits here and the notice applies it. Absent otherwise (and in records written before it existed).
   */
  heldReport?: TestRunReport;
}

export class TestRunRecords {
  private constructor(private readonly runs: Collection<TestRunRecord>) {}

  static async open(store: Store): Promise<TestRunRecords> {
    const runs = store.collection<TestRunRecord>("test_runs");
    await runs.createIndex({ queueKey: 1, runId: 1 });
    await runs.createIndex({ runId: 1 });
    await runs.createIndex({ testBranchSha: 1 });
    return new TestRunRecords(runs);
  }

  static id(queueKey: string, runId: string): string {
    return `${queueKey}#${runId}`;
  }

  /** Idempotent: a re-run of the same command writes the same record. */
  async started(record: TestRunRecord): Promise<void> {
    const { _id, ...fields } = record;
    await this.runs.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true });
  }

  /** A run by its global id alone (external CI reports name only the run). */
  async byRunId(runId: string): Promise<TestRunRecord | null> {
    return this.runs.findOne({ runId });
  }

  /** In-progress runs whose pushed test branch is at `sha`, of the queues whose keys start with `queueKeyPrefix`. */
  async inProgressAt(queueKeyPrefix: string, sha: string): Promise<TestRunRecord[]> {
    const found = await this.runs.find({ testBranchSha: sha, status: "IN_PROGRESS" });
    return found.filter((r) => r.queueKey.startsWith(queueKeyPrefix));
  }

  /** Whether `sha` is a commit a run of the queue built (its test branch's head or one PR's commit). */
  async builtCommit(queueKey: string, sha: string, recent = 50): Promise<boolean> {
    const latest = await this.runs.find({ queueKey }, { sort: { createdAt: -1 }, limit: recent });
    return latest.some((r) => r.testBranchSha === sha || Object.values(r.commits).includes(sha));
  }

  /** The statuses the code host reported on an in-progress run's branch (latest per context). */
  async statusChecks(queueKey: string, runId: string, checks: TestRunRecord["statusChecks"]): Promise<void> {
    await this.runs.updateOne(
      { _id: TestRunRecords.id(queueKey, runId), status: "IN_PROGRESS" },
      { $set: { statusChecks: checks } },
    );
  }

  async get(queueKey: string, runId: string): Promise<TestRunRecord | null> {
    return this.runs.findOne({ _id: TestRunRecords.id(queueKey, runId) });
  }

  async finished(
    queueKey: string,
    runId: string,
    patch: Partial<
      Pick<
        TestRunRecord,
        "status" | "testBranch" | "testBranchSha" | "commits" | "statusChecks" | "finishedAt"
      >
    >,
  ): Promise<void> {
    // A result that crossed the run's cancellation on the bus does not revive it.
    await this.runs.updateOne(
      { _id: TestRunRecords.id(queueKey, runId), status: { $ne: "CANCELLED" } },
      { $set: patch },
    );
  }

  /**
   * The batch-runner pushed the run's branch: its commit (and each PR's) is known while the tests run. Returns
   * the record as it now stands, null when the run is no longer in progress.
   */
  async pushed(
    queueKey: string,
    runId: string,
    push: Pick<TestRunRecord, "testBranch" | "testBranchSha" | "commits">,
  ): Promise<TestRunRecord | null> {
    return this.runs.findOneAndUpdate(
      { _id: TestRunRecords.id(queueKey, runId), status: "IN_PROGRESS" },
      { $set: push },
      { returnDocument: "after" },
    );
  }

  /**
   * Keeps a report until the push is known; false when the push was recorded first (then the report is applied
   * at once). The two conditional writes leave no gap: whichever comes second sees the other.
   */
  async holdReport(queueKey: string, runId: string, report: TestRunReport): Promise<boolean> {
    const held = await this.runs.updateOne(
      { _id: TestRunRecords.id(queueKey, runId), status: "IN_PROGRESS", testBranchSha: "" },
      { $set: { heldReport: report } },
    );
    return held.matchedCount > 0;
  }

  async cancelled(queueKey: string, runId: string, at: Date): Promise<void> {
    await this.runs.updateOne(
      { _id: TestRunRecords.id(queueKey, runId), status: "IN_PROGRESS" },
      { $set: { status: "CANCELLED", finishedAt: at.toISOString() } },
    );
  }
}
