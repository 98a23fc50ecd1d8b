import { UnavailableError } from "@mainline/kit/errors/index";
import type { ExternalTestRunReported } from "@mainline/proto/queue";
import type { ExternalReportBoard } from "../bus/external-report-board.js";
import type { ExternalRunRegistry, ExternalRunResult } from "../runner/external-runner.js";

export interface ExternalVerdict extends ExternalRunResult {
  /** The CI's own words, when the report carried any. */
  readonly message?: string;
}

/**
 * Waits for an external CI's report on a test run, whichever replica took the report off the
 * stream: reports posted before the wait began are read from the board, later ones arrive through
 * the board's watch (`accept`). The timeout is the registry's.
 */
export class ExternalRunWaiter {
  /** Organisation of each run waiting here: a report from another organisation is ignored. */
  private readonly waitingOrgs = new Map<string, string>();
  private readonly accepted = new Map<string, ExternalTestRunReported>();

  constructor(
    private readonly registry: ExternalRunRegistry,
    private readonly board: ExternalReportBoard,
  ) {}

  /** A report posted by any replica; handed on only when a run here waits for it. */
  accept(report: ExternalTestRunReported): void {
    const org = this.waitingOrgs.get(report.testRunId);
    if (org === undefined || (org !== "" && report.org !== "" && org !== report.org)) return;
    this.accepted.set(report.testRunId, report);
    this.registry.report(report.testRunId, {
      outcome: report.passed ? "passed" : "failed",
      junitFiles: report.junitXml.map((content, i) => ({ path: `external-report-${i + 1}.xml`, content })),
      ...(report.detailsUrl !== undefined && { detailsUrl: report.detailsUrl }),
    });
  }

  /**
   * Resolves with the report, or timed_out after `timeoutMs`. Rejects with a retryable error when
   * `abort` fires (shutdown: the job goes back to the stream and another replica waits on; a
   * cancellation: the caller knows it from its own signal), and stops waiting at once.
   */
  async waitFor(
    testRunId: string,
    org: string,
    timeoutMs: number,
    abort: AbortSignal,
  ): Promise<ExternalVerdict> {
    this.waitingOrgs.set(testRunId, org);
    // Registered before the board is read, so a report posted in between is not missed.
    const waiting = this.registry.waitFor(testRunId, timeoutMs);
    try {
      const posted = await this.board.read(testRunId);
      if (posted !== undefined) this.accept(posted);
      const result = await raceAbort(waiting, abort).catch((error: unknown) => {
        this.registry.abandon(testRunId);
        throw error;
      });
      const message = this.accepted.get(testRunId)?.message;
      return { ...result, ...(message !== undefined && message !== "" && { message }) };
    } finally {
      if (!this.registry.pending().includes(testRunId)) {
        this.waitingOrgs.delete(testRunId);
        this.accepted.delete(testRunId);
      }
    }
  }
}

function raceAbort<T>(promise: Promise<T>, abort: AbortSignal): Promise<T> {
  const stopping = () => new UnavailableError("the batch-runner is stopping; the wait resumes on redelivery");
  if (abort.aborted) return Promise.reject(stopping());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopping());
    abort.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        abort.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        abort.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
