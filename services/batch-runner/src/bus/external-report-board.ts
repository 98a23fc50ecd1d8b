import { KvWatchInclude, type JetStreamClient, type KV } from "nats";
import { ExternalTestRunReported } from "@mainline/proto/queue";

export const EXTERNAL_REPORTS_BUCKET = "mainline_batch_runner_external_reports";
const WEEK_MS = 7 * 24 * 60 * 60_000;

export interface ReportWatch {
  stop(): void;
}

/**
 * Where external CI reports wait for the replica running their test run. The reports arrive on
 * the jobs work-queue stream, where one replica takes each message, but the run may be waiting on
 * another replica (or on none yet: a fast CI, or a job about to be redelivered). So the replica
 * that takes a report writes it here, keyed by test-run id, and every replica watches the bucket
 * and reads it when it starts waiting. Kept a week, then aged out by the bucket's TTL.
 */
export class ExternalReportBoard {
  private constructor(private readonly kv: KV) {}

  static async open(js: JetStreamClient, ttlMs = WEEK_MS): Promise<ExternalReportBoard> {
    return new ExternalReportBoard(await js.views.kv(EXTERNAL_REPORTS_BUCKET, { history: 1, ttl: ttlMs }));
  }

  /** Idempotent: a redelivered report overwrites itself. */
  async post(report: ExternalTestRunReported): Promise<void> {
    await this.kv.put(report.testRunId, ExternalTestRunReported.encode(report).finish());
  }

  async read(testRunId: string): Promise<ExternalTestRunReported | undefined> {
    const entry = await this.kv.get(testRunId);
    if (entry === null || entry.operation !== "PUT") return undefined;
    return ExternalTestRunReported.decode(entry.value);
  }

  /** Calls `onReport` for every report posted from now on, by any replica. */
  async watch(
    onReport: (report: ExternalTestRunReported) => void,
    onError: (error: unknown) => void,
  ): Promise<ReportWatch> {
    const updates = await this.kv.watch({ include: KvWatchInclude.UpdatesOnly, ignoreDeletes: true });
    void (async () => {
      for await (const entry of updates) {
        if (entry.operation !== "PUT") continue;
        // One bad entry must not end the watch for every later report.
        try {
          onReport(ExternalTestRunReported.decode(entry.value));
        } catch (error) {
          onError(error);
        }
      }
    })().catch(onError);
    return { stop: () => updates.stop() };
  }
}
