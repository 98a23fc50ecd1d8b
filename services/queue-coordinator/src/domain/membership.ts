import type { Draft } from "./draft.js";
import { insertIntoOrder, takeOutOfQueue } from "./queue-order.js";
import type { CancellationReason, FailureReason, RestartReason } from "./reasons.js";
import {
  awaitingStackDetail,
  directlyAbove,
  endedBelowDetail,
  pruneFromBisection,
  queueReadiness,
} from "./stack.js";
import { setPrState } from "./transitions.js";

/**
 * Moves a NOT_READY PR into the queue once it is ready. While the queue switches modes, waiting
 * PRs stay out so that the switch can complete; they are looked at again afterwards.
 */
export function admitIfReady(d: Draft, n: number): void {
  const entry = d.pr(n);
  if (entry === undefined || entry.state !== "NOT_READY") return;
  if (d.state.queueState === "SWITCHING_MODES") return;
  const readiness = queueReadiness(d.state.prs, entry, d.state.branch, d.state.settings.mode === "PARALLEL");
  if (!readiness.ready) {
    const last = entry.history[entry.history.length - 1];
    if (last !== undefined && last.reason !== readiness.reason && last.to === "NOT_READY") {
      const detail = readiness.reason === "AWAITING_STACK_BELOW" ? awaitingStackDetail(entry) : undefined;
      setPrState(d, n, "NOT_READY", readiness.reason, null, false, detail);
    }
    return;
  }
  const mine = d.editPr(n);
  mine.enqueuedAt = d.now;
  mine.startedTesting = false;
  setPrState(d, n, "PENDING", "READY");
  insertIntoOrder(d, n);
  // The PRs stacked on it were waiting for it to be in line.
  for (const above of directlyAbove(d.state.prs, n)) admitIfReady(d, above);
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
  detail?: string,
): void {
  // Taken out of its batch first, the PR would no longer show that a bisection decided its end.
  const batchId = d.pr(n)?.batchId ?? null;
  const bisected = batchId !== null && d.batch(batchId)?.status === "BISECTING";
  takeOutOfQueue(d, n, exceptBatch);
  pruneFromBisection(d, batchId, n);
  setPrState(d, n, to, reason, runId, bisected, detail);
  // A stacked PR holds the commits of the PRs below it: it cannot land without them (issue 28). Those above
  // a PR that ended with its stack keep the name of the PR where it started.
  const aboveReason = to === "FAILED" ? "DEPENDS_ON_FAILED" : reason;
  const aboveDetail = detail ?? endedBelowDetail(n, to);
  for (const above of directlyAbove(d.state.prs, n)) {
    if (d.pr(above)?.mergeId !== null) continue;
    endPr(d, above, to, aboveReason, runId, exceptBatch, aboveDetail);
  }
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
