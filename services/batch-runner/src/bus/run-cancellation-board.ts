import { KvWatchInclude, type JetStreamClient, type KV } from "nats";
import { openReplicatedKv, type Replication } from "@mainline/kit/bus/index";

export const CANCELLED_RUNS_BUCKET = "mainline_batch_runner_cancelled_runs";
const WEEK_MS = 7 * 24 * 60 * 60_000;

export interface CancellationWatch {
  stop(): void;
}

/**
 * The test runs the planner cancelled, shared by all replicas. One replica takes each cancellation
 * off the events stream and writes it here; every replica watches the bucket (the run may be on any
 * of them) and reads it when a job starts (the job may still be waiting on the stream, or be
 * redelivered after a crash). Kept a week, as long as a job can wait, then aged out by the TTL.
 */
export class RunCancellationBoard {
  private constructor(private readonly kv: KV) {}

  static async open(
    js: JetStreamClient,
    replication?: Replication,
    ttlMs = WEEK_MS,
  ): Promise<RunCancellationBoard> {
    return new RunCancellationBoard(
      await openReplicatedKv(js, CANCELLED_RUNS_BUCKET, { history: 1, ttl: ttlMs }, replication),
    );
  }

  /** Idempotent: a redelivered cancellation overwrites itself. */
  async post(testRunId: string, reason: string): Promise<void> {
    await this.kv.put(testRunId, new TextEncoder().encode(reason));
  }

  async isCancelled(testRunId: string): Promise<boolean> {
    const entry = await this.kv.get(testRunId);
    return entry !== null && entry.operation === "PUT";
  }

  /** Calls `onCancel` for every cancellation posted from now on, by any replica. */
  async watch(
    onCancel: (testRunId: string) => void,
    onError: (error: unknown) => void,
  ): Promise<CancellationWatch> {
    const updates = await this.kv.watch({ include: KvWatchInclude.UpdatesOnly, ignoreDeletes: true });
    void (async () => {
      for await (const entry of updates) {
        if (entry.operation !== "PUT") continue;
        try {
          onCancel(entry.key);
        } catch (error) {
          onError(error);
        }
      }
    })().catch(onError);
    return { stop: () => updates.stop() };
  }
}
