import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { JunitFile, RunOutcome } from "./run-result.js";

/** What an external CI reports for a test run through the API. */
export interface ExternalReport {
  readonly outcome: "passed" | "failed";
  readonly junitFiles?: readonly JunitFile[];
  /** A link to the CI's own page for the run. */
  readonly detailsUrl?: string;
}

export interface ExternalRunResult {
  readonly outcome: RunOutcome;
  readonly junitFiles: readonly JunitFile[];
  readonly detailsUrl?: string;
}

export interface ExternalRunRegistryOptions {
  /** Reports that arrive before anyone waits are kept, up to this many (oldest dropped first). */
  readonly maxEarlyReports?: number;
}

interface Waiter {
  resolve(result: ExternalRunResult): void;
  timer: NodeJS.Timeout;
}

/**
 * The waiting side of the `external` runner: a test run waits here until its CI reports through
 * the API, or until the queue's testing timeout passes. A report can beat the wait (a fast CI,
 * or a wait re-registered after a redelivery), so early reports are kept until claimed.
 */
export class ExternalRunRegistry {
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly earlyReports = new Map<string, ExternalRunResult>();
  private readonly maxEarlyReports: number;

  constructor(options: ExternalRunRegistryOptions = {}) {
    this.maxEarlyReports = options.maxEarlyReports ?? 10_000;
  }

  /** Resolves with the run's report, or with outcome timed_out once `timeoutMs` has passed. */
  waitFor(testRunId: string, timeoutMs: number): Promise<ExternalRunResult> {
    assertRunId(testRunId);
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new InvalidArgumentError("timeoutMs", "must be a positive number");
    const early = this.earlyReports.get(testRunId);
    if (early) {
      this.earlyReports.delete(testRunId);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => {
          this.removeWaiter(testRunId, waiter);
          resolve({ outcome: "timed_out", junitFiles: [] });
        }, timeoutMs),
      };
      this.waiters.set(testRunId, [...(this.waiters.get(testRunId) ?? []), waiter]);
    });
  }

  /** Delivers a report; returns true when a run was waiting for it, false when it was kept for later. */
  report(testRunId: string, report: ExternalReport): boolean {
    assertRunId(testRunId);
    if (report.outcome !== "passed" && report.outcome !== "failed") {
      throw new InvalidArgumentError("outcome", "must be passed or failed");
    }
    const result: ExternalRunResult = {
      outcome: report.outcome,
      junitFiles: report.junitFiles ?? [],
      ...(report.detailsUrl !== undefined ? { detailsUrl: report.detailsUrl } : {}),
    };
    const waiting = this.waiters.get(testRunId);
    if (!waiting) {
      this.keepEarly(testRunId, result);
      return false;
    }
    this.waiters.delete(testRunId);
    for (const waiter of waiting) {
      clearTimeout(waiter.timer);
      waiter.resolve(result);
    }
    return true;
  }

  /** Ends the waits for a run that no longer needs a report (cancelled, or handed back on shutdown). */
  abandon(testRunId: string): void {
    for (const waiter of this.waiters.get(testRunId) ?? []) clearTimeout(waiter.timer);
    this.waiters.delete(testRunId);
  }

  /** Run ids currently waiting for a report. */
  pending(): string[] {
    return [...this.waiters.keys()];
  }

  private keepEarly(testRunId: string, result: ExternalRunResult): void {
    this.earlyReports.delete(testRunId);
    this.earlyReports.set(testRunId, result);
    while (this.earlyReports.size > this.maxEarlyReports) {
      const oldest = this.earlyReports.keys().next().value;
      if (oldest === undefined) break;
      this.earlyReports.delete(oldest);
    }
  }

  private removeWaiter(testRunId: string, waiter: Waiter): void {
    const rest = (this.waiters.get(testRunId) ?? []).filter((w) => w !== waiter);
    if (rest.length > 0) this.waiters.set(testRunId, rest);
    else this.waiters.delete(testRunId);
  }
}

function assertRunId(testRunId: string): void {
  if (testRunId.trim().length === 0) throw new InvalidArgumentError("testRunId", "must not be empty");
}
