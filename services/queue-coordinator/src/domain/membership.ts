import type { Draft } from "./draft.js";
import { readinessOf } from "./pull-request.js";
import { insertIntoOrder, takeOutOfQueue } from "./queue-order.js";
import type { CancellationReason, FailureReason, RestartReason } from "./reasons.js";
import { setPrState } from "./transitions.js";

/**
 * Moves a NOT_READY PR into the queue once it is ready. While the queue switches modes, waiting
 * PRs stay out so that the switch can complete; they are looked at again afterwards.
 */
export function admitIfReady(d: Draft, n: number): void {
  const entry = d.pr(n);
  if (entry === undefined || entry.state !== "NOT_READY") return;
  if (d.state.queueState === "SWITCHING_MODES") return;
  const readiness = readinessOf(entry, d.state.branch, d.state.settings.mode === "PARALLEL");
  if (!readiness.ready) {
    const last = entry.history[entry.history.length - 1];
    if (last !== undefined && last.reason !== readiness.reason && last.to === "NOT_READY") {
      setPrState(d, n, "NOT_READY", readiness.reason);
    }
    return;
  }
  const mine = d.editPr(n);
  mine.enqueuedAt = d.now;
  mine.startedTesting = false;
  setPrState(d, n, "PENDING", "READY");
  insertIntoOrder(d, n);
}

export function admitAllReady(d: Draft): void {
  for (const entry of Object.values(d.state.prs))
    if (entry.state === "NOT_READY") admitIfReady(d, entry.number);
}

/** Ends a PR that is not being merged: it leaves the queue and everything built on it restarts. */
export function endPr(
  d: Draft,
  n: number,
  to: "FAILED" | "CANCELLED",
  reason: FailureReason | CancellationReason,
  runId: string | null = null,
  exceptBatch: string | null = null,
): void {
  // Taken out of its batch first, the PR would no longer show that a bisection decided its end.
  const batchId = d.pr(n)?.batchId ?? null;
  const bisected = batchId !== null && d.batch(batchId)?.status === "BISECTING";
  takeOutOfQueue(d, n, exceptBatch);
  setPrState(d, n, to, reason, runId, bisected);
}

/** The PR changed underneath (new head, targets, base): it leaves its place and must become ready again. */
export function sendBackToNotReady(d: Draft, n: number, reason: RestartReason): void {
  const entry = d.pr(n);
  if (entry === undefined) return;
  if (entry.state !== "NOT_READY") {
    takeOutOfQueue(d, n);
    setPrState(d, n, "NOT_READY", reason);
  }
  admitIfReady(d, n);
}
