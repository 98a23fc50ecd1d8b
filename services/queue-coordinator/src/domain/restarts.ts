import { isCurrentProbe } from "./batch.js";
import type { Draft } from "./draft.js";
import { isProbeRun, NO_OBSERVATIONS, observeProbe } from "./observed-failures.js";
import type { RestartReason } from "./reasons.js";
import { containsAny } from "./test-run.js";
import { setPrState } from "./transitions.js";

/** Cancels a batch's runs still in flight and forgets all of its runs (but `keep`). */
export function dropRunsOf(
  d: Draft,
  batchId: string,
  reason: RestartReason | "TIMED_OUT",
  keep: string | null = null,
): void {
  for (const run of d.allRuns()) {
    if (run.batchId !== batchId || run.id === keep) continue;
    if (run.status === "RUNNING") {
      d.decide({ type: "CANCEL_TEST_RUN", runId: run.id, reason });
      if (isProbeRun(run)) noteProbe(d, false);
    }
    d.deleteRun(run.id);
  }
}

/**
 * Sends a batch back to the start: its runs are cancelled, any failure or bisection forgotten,
 * its PRs PENDING again in the same place. A merge in flight is never undone here.
 */
export function restartBatch(d: Draft, batchId: string, reason: RestartReason, detail?: string): void {
  const batch = d.batch(batchId);
  if (batch === undefined || batch.status === "MERGING") return;
  dropStaleProbe(d, batchId);
  if (batch.status === "FORMING" || (batch.status === "QUEUED" && batch.runId === null)) return;
  // A probe tested the members on the target alone: what happened ahead does not change it.
  const probe = batch.probe != null && isCurrentProbe(batch, batch.probe.runId) ? batch.probe : null;
  dropRunsOf(d, batchId, reason, probe?.runId ?? null);
  const mine = d.setBatchStatus(batchId, "QUEUED");
  mine.probe = probe;
  mine.runId = null;
  mine.failure = null;
  mine.bisection = null;
  mine.aside = false;
  for (const n of mine.prs) {
    if (d.pr(n)?.state !== "PENDING") setPrState(d, n, "PENDING", reason, null, false, detail);
  }
}

/**
 * Restarts every batch whose runs contain one of `prs` (under test or in the base), `exceptBatch`
 * aside; with `mainOnly`, only main runs count.
 */
export function restartRunsContaining(
  d: Draft,
  prs: ReadonlySet<number>,
  reason: RestartReason,
  { exceptBatch = null, mainOnly = false }: { exceptBatch?: string | null; mainOnly?: boolean } = {},
): void {
  const affected = new Set<string>();
  for (const run of d.allRuns()) {
    if (mainOnly && run.kind !== "main") continue;
    // A witness is evidence about the failed PR it was built on, whatever happens to the PRs stacked on it.
    if (run.witness === true) continue;
    if (run.batchId !== exceptBatch && containsAny(run, prs)) affected.add(run.batchId);
  }
  for (const id of affected) restartBatch(d, id, reason);
}

/** The target branch moved underneath: every result so far was built on a stale base. */
export function restartEverything(d: Draft, reason: RestartReason): void {
  for (const id of Object.keys(d.state.batches)) restartBatch(d, id, reason);
}

/** Keeps the share of probes that answered in time (see observed-failures.ts). */
export function noteProbe(d: Draft, used: boolean): void {
  d.state.observed = observeProbe(d.state.observed ?? NO_OBSERVATIONS, used);
}

/** A probe of members the batch no longer has answers nothing: it is cancelled. */
export function dropStaleProbe(d: Draft, batchId: string): void {
  const probe = d.batch(batchId)?.probe;
  if (probe == null || isCurrentProbe(d.batch(batchId), probe.runId)) return;
  if (d.run(probe.runId)?.status === "RUNNING") {
    d.decide({ type: "CANCEL_TEST_RUN", runId: probe.runId, reason: "BATCH_MEMBER_REMOVED" });
    noteProbe(d, false);
  }
  d.deleteRun(probe.runId);
  d.editBatch(batchId).probe = null;
}
