import type { JetStreamClient, KV } from "nats";
import { openReplicatedKv, type Replication } from "@mainline/kit/bus/index";
import { TestRunResult } from "@mainline/proto/queue";

export const TEST_RUN_RESULTS_BUCKET = "mainline_batch_runner_test_run_results";
const WEEK_MS = 7 * 24 * 60 * 60_000;

/**
 * The first result recorded for each test run, shared by all replicas. A job redelivered after
 * its result was decided (a crash before the ack, or a late duplicate) republishes this record
 * instead of running again, so the coordinator never hears two different outcomes for one run,
 * even after the stream's duplicate window has passed. A JetStream key-value bucket rather than
 * the service store: replicas of the embedded store do not see each other's writes.
 */
export class TestRunResultLedger {
  private constructor(private readonly kv: KV) {}

  static async open(
    js: JetStreamClient,
    replication?: Replication,
    ttlMs = WEEK_MS,
  ): Promise<TestRunResultLedger> {
    return new TestRunResultLedger(
      await openReplicatedKv(js, TEST_RUN_RESULTS_BUCKET, { history: 1, ttl: ttlMs }, replication),
    );
  }

  async read(testRunId: string): Promise<TestRunResult | undefined> {
    const entry = await this.kv.get(testRunId);
    if (entry === null || entry.operation !== "PUT") return undefined;
    return TestRunResult.decode(entry.value);
  }

  /** Records `result` unless a result for the run is already there; returns the one that counts. */
  async recordFirst(result: TestRunResult): Promise<TestRunResult> {
    try {
      await this.kv.create(result.testRunId, TestRunResult.encode(result).finish());
      return result;
    } catch (error) {
      // create fails when the key exists: another delivery of this run decided first.
      const existing = await this.read(result.testRunId);
      if (existing !== undefined) return existing;
      throw error;
    }
  }
}
