import type { BatchStatus } from "@mainline/contract";
import type { Bisection, BisectionResult } from "./bisection.js";
import type { FailureReason } from "./reasons.js";

/** The contract's batch statuses (rules 3-5 forming, 13 pending failure, 8 bisecting). */
export type { BatchStatus };

/**
 * The unit the main queue tests: one PR, or several consecutive PRs of one lane. Without
 * batching every PR is a batch of one. A batch is itself a testing lane (rule 6).
 */
export interface Batch {
  id: string;
  /** Members in queue order. */
  prs: number[];
  status: BatchStatus;
  /** Deadline anchor for rule 4: when the first member entered the queue. */
  formingSince: number;
  /** A no-batch PR or an urgent PR: never joined by others. */
  closed: boolean;
  /** The current main run (RUNNING, PASSED, or FAILED while pending failure). */
  runId: string | null;
  /** `probe`: the failing run was the batch's probe, on the target alone (see probes.ts). */
  /** `tests`: the ids of the tests the run failed, when it gave them all (see BisectionResult.failedTests). */
  failure: {
    reason: FailureReason;
    at: number;
    runId: string;
    probe?: boolean;
    tests?: string[];
    /**
     * Its failed tests were not the ones of the failed batch ahead in its run's base: it steps aside without waiting
     * for the batches ahead (see ejection.ts).
     */
    standsAlone?: boolean;
    /** A run built on it, kept as evidence of its failure (see witness.ts), and its result once known. */
    witness?: { runId: string; key: string; result?: BisectionResult };
  } | null;
  bisection: Bisection | null;
  /**
   * Failed and stepped out of the line (see ejection.ts): nothing behind waits for it. Absent in
   * states stored before ejection existed.
   */
  aside?: boolean;
  /**
   * Its failure was disproved once by a passing run built on it, and it was tested again in its
   * place (see ejection.ts); a second failure is searched as usual. Absent when never.
   */
  retried?: boolean;
  /** Retried in place after only known flaky tests failed (issue 26): their names, for the retry's history. */
  flakyRetry?: string[] | null;
  /** The batch's probe run (see probes.ts) and the members it tested; absent when never probed. */
  probe?: BatchProbe | null;
}

export interface BatchProbe {
  runId: string;
  prs: number[];
  /** Set once the probe passed; a failed probe ends the record. */
  passed?: boolean;
}

/** Whether the run is the probe of the batch as it is now (the same members). */
export function isCurrentProbe(batch: Readonly<Batch> | undefined, runId: string): boolean {
  const probe = batch?.probe;
  if (probe == null || probe.runId !== runId || batch === undefined) return false;
  return probe.prs.length === batch.prs.length && probe.prs.every((n, i) => batch.prs[i] === n);
}

export function isSettled(status: BatchStatus): boolean {
  return status !== "FORMING";
}
