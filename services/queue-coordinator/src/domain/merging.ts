import type { Draft } from "./draft.js";
import { sameLane } from "./ejection.js";
import type { LaneGraph } from "./lanes.js";
import { isProgressing } from "./queue-state.js";
import { isProbeRun } from "./observed-failures.js";
import { dropRunsOf, noteProbe, restartBatch, restartEverything } from "./restarts.js";
import { setPrState } from "./transitions.js";

/**
 * Decides merges. A batch merges when its main run passed and everything ahead of it in its
 * lane has merged; with optimistic merging, a passing run also merges everything ahead of it
 * that it contained (rule 14), whatever their own state. Merges of one lane are sequential:
 * nothing is decided while a merge ahead is still in flight.
 */
export function planMerges(d: Draft, graph: LaneGraph): void {
  if (!isProgressing(d.state.queueState)) return;
  for (const batchId of [...graph.withStatus("PASSED")]) {
    const batch = d.batch(batchId);
    if (batch?.status !== "PASSED" || batch.runId === null) continue;
    const run = d.run(batch.runId);
    if (run?.status !== "PASSED") continue;
    const deps = graph.depsOf(batchId);
    if (deps.length === 0) {
      if (run.base.some((p) => d.pr(p) !== undefined)) {
        // Invariant guard: a base PR still queued but no longer ahead means the run is stale.
        restartBatch(d, batchId, "ITEM_AHEAD_REMOVED");
        continue;
      }
      startMerge(d, [batchId], run.id, false);
      continue;
    }
    if (!d.state.settings.canOptimisticallyMerge) continue;
    const ahead = graph.ancestorsOf(batchId);
    if (ahead.some((id) => d.batch(id)?.status === "MERGING")) continue;
    const aheadPrs = graph.prsOf(d.state.batches, ahead);
    const stillQueuedBase = run.base.filter((p) => d.pr(p) !== undefined);
    if (stillQueuedBase.length !== aheadPrs.length || stillQueuedBase.some((p, i) => p !== aheadPrs[i])) {
      restartBatch(d, batchId, "ITEM_AHEAD_REMOVED");
      continue;
    }
    startMerge(d, [...ahead, batchId], run.id, true);
  }
}

function startMerge(d: Draft, batchIds: readonly string[], runId: string, optimistic: boolean): void {
  const mergeId = d.nextId("merge");
  const prs: number[] = [];
  for (const id of batchIds) {
    const batch = d.batch(id);
    if (batch === undefined) continue;
    // The passing run makes every other run of these batches moot.
    for (const run of d.allRuns()) {
      if (run.batchId === id && run.id !== runId) {
        if (run.status === "RUNNING") {
          d.decide({ type: "CANCEL_TEST_RUN", runId: run.id, reason: "MERGING" });
          if (isProbeRun(run)) noteProbe(d, false);
        }
        d.deleteRun(run.id);
      }
    }
    const mine = d.setBatchStatus(id, "MERGING");
    mine.bisection = null;
    for (const n of mine.prs) {
      prs.push(n);
      d.editPr(n).mergeId = mergeId;
      if (d.pr(n)?.state !== "TESTS_PASSED") setPrState(d, n, "TESTS_PASSED", "OPTIMISTIC_MERGE", runId);
    }
  }
  markLanesMoved(d, prs, runId);
  markBisectionRunsMoved(d, prs);
  d.putMerge({ id: mergeId, prs, runId, batchIds: [...batchIds], optimistic });
  d.decide({ type: "MERGE", mergeId, prs, runId, optimistic });
}

/**
 * In parallel lanes a bisection's passing runs stay mergeable while nothing of its own lane lands
 * (see canMergeFromBisection); a merge from one of its own runs (a good group) is what it tested.
 */
function markLanesMoved(d: Draft, prs: readonly number[], runId: string): void {
  if (d.state.settings.mode === "SINGLE") return;
  for (const [id, batch] of Object.entries(d.state.batches)) {
    const bisection = batch.status === "BISECTING" ? batch.bisection : null;
    if (bisection == null || bisection.laneMoved === true) continue;
    if (Object.values(bisection.results).some((r) => r.runId === runId)) continue;
    if (sameLane(d, batch.prs, prs)) d.editBatch(id).bisection = { ...bisection, laneMoved: true };
  }
}

/**
 * A bisection run tests its combination on the target as it was when the run started; a merge of anything but
 * the run's own base (its good members ahead, which it contains) moves that target under it, in parallel lanes
 * only a merge sharing a target with it. A run left untouched still tests exactly what would land, whatever else
 * merged before it started (see canMergeFromBisection).
 */
function markBisectionRunsMoved(d: Draft, prs: readonly number[]): void {
  for (const run of d.allRuns()) {
    if (run.kind !== "bisection" || run.comboKey === null || run.targetMoved === true) continue;
    if (movesTargetOf(d, run, prs)) d.editRun(run.id).targetMoved = true;
  }
}

/**
 * Whether landing the merge's `prs` moves the target under a run testing `run.prs` on `run.base`. A run that
 * starts while such a merge is still in flight starts moved: its branch lacks what lands before its own group could.
 */
export function movesTargetOf(
  d: Draft,
  run: { base: readonly number[]; prs: readonly number[] },
  prs: readonly number[],
): boolean {
  if (prs.every((p) => run.base.includes(p))) return false;
  return sameLane(d, [...run.base, ...run.prs], prs);
}

/**
 * Applies a merge result; a result for an unknown merge (a redelivery) changes nothing. A TARGET_MOVED result may
 * name PRs of the merge that did land (`mergedPrs`: a merge through GitHub's API refused midway): those are merged,
 * the rest are re-tested on the target they left.
 */
export function finishMerge(
  d: Draft,
  mergeId: string,
  outcome: "MERGED" | "TARGET_MOVED",
  mergedPrs: readonly number[] = [],
): void {
  const merge = d.merge(mergeId);
  if (merge === undefined) return;
  d.deleteMerge(mergeId);
  const landed = outcome === "MERGED" ? merge.prs : merge.prs.filter((n) => mergedPrs.includes(n));
  if (landed.length > 0) land(d, merge, landed);
  if (outcome === "TARGET_MOVED") {
    for (const id of merge.batchIds) if (d.batch(id) !== undefined) d.setBatchStatus(id, "PASSED");
    for (const n of merge.prs) if (!landed.includes(n) && d.pr(n) !== undefined) d.editPr(n).mergeId = null;
    restartEverything(d, "TARGET_BRANCH_MOVED");
    return;
  }
  if (merge.prs.length > 1) d.notify({ type: "BATCH_MERGED", mergeId, prs: [...merge.prs], at: d.now });
}

/** The PRs `landed` of `merge` are on the target: merged, out of the order and out of their batches. */
function land(
  d: Draft,
  merge: { prs: readonly number[]; batchIds: readonly string[]; runId: string },
  landed: readonly number[],
): void {
  const merged = new Set(landed);
  d.removeFromOrder(merged);
  for (const n of landed) {
    if (d.pr(n) === undefined) continue;
    setPrState(d, n, "MERGED", "MERGED", merge.runId);
  }
  for (const id of merge.batchIds) {
    const batch = d.batch(id);
    if (batch === undefined) continue;
    const left = batch.prs.filter((p) => !merged.has(p));
    if (left.length === 0) {
      dropRunsOf(d, id, "ITEM_AHEAD_REMOVED");
      d.deleteBatch(id);
    } else {
      d.editBatch(id).prs = left;
    }
  }
}
