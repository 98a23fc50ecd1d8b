import type { Batch } from "./batch.js";
import { startBisection, type Bisection } from "./bisection.js";
import type { Draft } from "./draft.js";
import type { LaneGraph } from "./lanes.js";
import { canMergeFromBisection, requeueGoodGroup } from "./ejection.js";
import { endPr } from "./membership.js";
import type { FailureReason } from "./reasons.js";
import { restartBatch } from "./restarts.js";

/**
 * A failed batch waits in PENDING_FAILURE (rule 13) until it has stepped aside (ejection.ts: once
 * everything ahead passed and its first `pendingFailureDepth` successors finished their runs) and
 * every batch ahead of it is resolved (merged or removed; a removal restarts it instead). Then a
 * single PR fails; a batch is bisected.
 */
export function resolvePendingFailures(d: Draft, graph: LaneGraph): void {
  for (const batchId of [...graph.withStatus("PENDING_FAILURE")]) {
    const batch = d.batch(batchId);
    if (batch?.status !== "PENDING_FAILURE" || batch.failure === null || batch.aside !== true) continue;
    // A probe failed on the target alone: nothing ahead was in it, so the search need not wait.
    if (graph.depsOf(batchId).length > 0 && batch.failure.probe !== true) continue;
    const failure = batch.failure;
    if (
      failure.standsAlone !== true &&
      d.run(failure.runId)?.base.some((n) => d.pr(n) !== undefined) === true
    ) {
      // Something the failing run contained is still queued but no longer ahead (its batch was
      // split by a bisection): the failure proves nothing about this batch alone.
      restartBatch(d, batchId, "ITEM_AHEAD_REMOVED");
      continue;
    }
    if (batch.prs.length === 1 && failure.probe !== true && !confirmsAlone(d, failure.reason)) {
      endPr(d, batch.prs[0] as number, "FAILED", failure.reason, failure.runId);
      continue;
    }
    d.deleteRun(failure.runId);
    const mine = d.setBatchStatus(batchId, "BISECTING");
    mine.runId = null;
    const search = startBisection(
      mine.prs,
      failure.runId,
      failure.reason,
      d.options.reuseBisectionResults,
      failure.tests,
    );
    mine.bisection = {
      ...withWitness(d, search, failure.witness),
      mergesAtStart: d.state.counters.merge,
    };
    sendVouchedBack(d, graph, batchId);
    // The bisection starts in the next round, which sees this batch among the bisecting ones.
    d.shape++;
  }
}

/**
 * With batching on, one failed run of a PR alone may be a flake, and a flake alone must never fail
 * a good PR: the PR is tested once more (a bisection of one) and fails only if that fails too. The run built on
 * it that was kept as its witness (see witness.ts) is that second run when it fails one of the same tests.
 * Only failed tests are confirmed: a timeout would hold the line as long again, and a merge conflict or
 * broken build does not come and go. Without
 * batching the queue keeps the hosted behaviour: the first failure fails the PR.
 */
function confirmsAlone(d: Draft, reason: FailureReason): boolean {
  return d.state.settings.batch && reason === "TESTS_FAILED";
}

/**
 * A member that a bisection cleared once already (it passed on the target and went back into the
 * line) is rarely the culprit of the next batch that fails with it. When the batch's good groups
 * can only go back into the line anyway (the line behind started without it), such members go
 * back at once, untested, and the search looks at the others only: the runs that would clear them
 * again are saved, and they are tested again in line, as they would have been. Each voucher is used
 * once: if one of them was the culprit after all, its next failure is searched as usual.
 */
function sendVouchedBack(d: Draft, graph: LaneGraph, batchId: string): void {
  const batch = d.batch(batchId);
  const bisection = batch?.bisection;
  if (batch === undefined || bisection == null) return;
  const vouched = batch.prs.filter((n) => d.pr(n)?.cleared === true);
  if (vouched.length === 0 || vouched.length === batch.prs.length) return;
  if (canMergeFromBisection(d, graph, batchId)) return;
  const rest = batch.prs.filter((n) => !vouched.includes(n));
  const failure = batch.failure as NonNullable<Batch["failure"]>;
  d.editBatch(batchId).bisection = {
    ...startBisection(rest, failure.runId, failure.reason, d.options.reuseBisectionResults, failure.tests),
    mergesAtStart: bisection.mergesAtStart,
    requeueOnly: true,
  };
  requeueGoodGroup(d, batchId, vouched, failure.runId, "CLEARED_BY_EARLIER_BISECTION");
}

/**
 * Hands a lone PR's search the run that was built on it when it failed (see ejection.ts): its result, or the run
 * still in flight. It answers sooner than a run of the PR's own, and costs no run more.
 */
function withWitness(d: Draft, b: Bisection, witness: NonNullable<Batch["failure"]>["witness"]): Bisection {
  if (witness === undefined) return b;
  const { key, runId, result } = witness;
  if (result === undefined && d.run(runId)?.status !== "RUNNING") return b;
  return {
    ...b,
    witness: key,
    ...(result === undefined
      ? { running: { ...b.running, [key]: runId } }
      : { results: { ...b.results, [key]: result } }),
  };
}
