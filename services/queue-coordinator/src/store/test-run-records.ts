import type { Collection, Store } from "@mainline/kit/store/index";

export type TestRunRecordStatus = "IN_PROGRESS" | "FAILED" | "CANCELLED" | "SUCCEEDED";

/** What getMergeQueueTestingDetails reports about one test run, from the job and its result. */
export interface TestRunRecord {
  _id: string;
  queueKey: string;
  runId: string;
  kind: "main" | "bisection";
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
  statusChecks: { context: string; url: string; state: string }[];
  finishedAt: string | null;
}

export class TestRunRecords {
  private constructor(private readonly runs: Collection<TestRunRecord>) {}

  static async open(store: Store): Promise<TestRunRecords> {
    const runs = store.collection<TestRunRecord>("test_runs");
    await runs.createIndex({ queueKey: 1, runId: 1 });
    await runs.createIndex({ runId: 1 });
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

  /** The batch-runner pushed the run's branch: its commit is known while the tests run. */
  async pushed(queueKey: string, runId: string, testBranch: string, testBranchSha: string): Promise<void> {
    await this.runs.updateOne(
      { _id: TestRunRecords.id(queueKey, runId), status: "IN_PROGRESS" },
      { $set: { testBranch, testBranchSha } },
    );
  }

  async cancelled(queueKey: string, runId: string, at: Date): Promise<void> {
    await this.runs.updateOne(
      { _id: TestRunRecords.id(queueKey, runId), status: "IN_PROGRESS" },
      { $set: { status: "CANCELLED", finishedAt: at.toISOString() } },
    );
  }
}
