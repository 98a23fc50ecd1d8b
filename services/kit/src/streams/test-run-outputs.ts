import { nanos, type JetStreamClient, type ObjectStore } from "nats";
import { openReplicatedObjectStore, type Replication } from "../bus/index.js";

export const TEST_RUN_OUTPUTS_BUCKET = "mainline_test_run_outputs";
/** The end of a run's output that is kept: enough to see why it failed, bounded per run. */
export const TEST_RUN_OUTPUT_MAX_BYTES = 1024 * 1024;
const RETENTION_MS = 30 * 24 * 60 * 60_000;

/**
 * The output tails of COMMAND runs, by test-run id: written by the batch-runner that ran the command, read by
 * the queue-coordinator (which owns the runs and answers only the run's own organisation). A JetStream object
 * store rather than a service store: a tail may reach 1 MiB, beyond one NATS message and too much to hold in an
 * embedded store's memory per run. Kept 30 days, then aged out by the bucket's TTL.
 */
export class TestRunOutputs {
  private constructor(private readonly store: ObjectStore) {}

  static async open(
    js: JetStreamClient,
    replication?: Replication,
    retentionMs = RETENTION_MS,
  ): Promise<TestRunOutputs> {
    return new TestRunOutputs(
      await openReplicatedObjectStore(js, TEST_RUN_OUTPUTS_BUCKET, { ttl: nanos(retentionMs) }, replication),
    );
  }

  /** Idempotent: a redelivered run overwrites its own output. Only the last TEST_RUN_OUTPUT_MAX_BYTES are kept. */
  async keep(testRunId: string, output: string): Promise<void> {
    const bytes = new TextEncoder().encode(output);
    await this.store.putBlob(
      { name: testRunId },
      bytes.subarray(Math.max(0, bytes.length - TEST_RUN_OUTPUT_MAX_BYTES)),
    );
  }

  async read(testRunId: string): Promise<string | undefined> {
    const bytes = await this.store.getBlob(testRunId);
    return bytes === null ? undefined : new TextDecoder().decode(bytes);
  }
}
