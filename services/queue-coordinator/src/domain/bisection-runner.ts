import { advanceBisection, witnessResult, type Bisection } from "./bisection.js";
import type { Draft } from "./draft.js";
import type { LaneGraph } from "./lanes.js";
import { canMergeFromBisection, isOffline, requeueGoodGroup, sameLane } from "./ejection.js";
import { endPr } from "./membership.js";
import { movesTargetOf } from "./merging.js";
import { effectiveBisectionConcurrency } from "./queue-settings.js";
import { startsRuns } from "./target-hold.js";
import { runningCount } from "./scheduling.js";
import { setPrState } from "./transitions.js";

/**
 * Combinations one bisection keeps in flight: the first unsettled segment and the one after it
 * (its sibling, tested on top of it). Deeper speculation pays only when every segment ahead
 * passes, and the segment that holds the culprit fails half the time: when it does, every run
 * stacked on it is cancelled. Two in flight settle a level per round, at a fraction of the runs.
 */
const PER_BISECTION = 2;

/**
 * Once the line behind a bisected batch has started without it, its good groups
 * cannot merge from their runs anyway (they go back into the line, see requeueGoodGroup): the
 * search only has to name the culprits, and one combination at a time does that with about half
 * the runs. Speed pays again when a passing group can merge at once. In parallel lanes too: there the line
 * behind is every later batch sharing a target with it, most of the line once lanes share batches.
 */
function inFlightFor(d: Draft, graph: LaneGraph, batchId: string, bisection: Bisection): number {
  // An independent search has no stacked combination to waste: every open segment runs.
  if (bisection.independent === true) return Infinity;
  return canMergeFromBisection(d, graph, batchId) ? PER_BISECTION : 1;
}

/**
 * In an ISOLATED queue, a search that has learnt nothing yet and whose good groups can only go back into the
 * line turns independent (see Bisection.independent), for good: nothing merges from its runs.
 */
function searchMode(d: Draft, graph: LaneGraph, batchId: string, bisection: Bisection): Bisection {
  if (bisection.independent === true || d.state.settings.bisectionMode !== "ISOLATED") return bisection;
  // A witness (see witness.ts) was no run of the search's.
  const witness = bisection.witness;
  if (Object.entries(bisection.results).some(([key, r]) => r.initial !== true && key !== witness))
    return bisection;
  if (canMergeFromBisection(d, graph, batchId) && !lineGoesOnWithout(d, graph, batchId)) return bisection;
  return { ...bisection, independent: true, requeueOnly: true };
}

/**
 * A batch of its lane waits behind the bisected one: it starts without it within the round (the failure
 * restarted it), so the bisection's good groups will go back into the line whatever happens.
 */
function lineGoesOnWithout(d: Draft, graph: LaneGraph, batchId: string): boolean {
  const prs = d.batch(batchId)?.prs ?? [];
  return graph.batchOrder
    .slice(graph.indexOf(batchId) + 1)
    .some((id) => !isOffline(d, id) && sameLane(d, prs, d.batch(id)?.prs ?? []));
}

/**
 * Drives every bisection one step: culprits leave as FAILED, confirmed-good segments become
 * batches of their own that merge through the ordinary path (their run contained them and
 * everything ahead), and the combinations worth testing next are started within the separate
 * bisection concurrency (rule 9). Runs that no longer help are cancelled.
 */
export function advanceBisections(d: Draft, graph: LaneGraph): void {
  const cap = effectiveBisectionConcurrency(d.state.settings);
  let slots = cap - runningCount(d, "bisection");
  for (const batchId of [...graph.withStatus("BISECTING")]) {
    const batch = d.batch(batchId);
    if (batch?.status !== "BISECTING" || batch.bisection === null) continue;
    const bisection = searchMode(d, graph, batchId, batch.bisection);
    const progress = advanceBisection(bisection, Math.min(cap, inFlightFor(d, graph, batchId, bisection)));
    d.editBatch(batchId).bisection = progress.bisection;
    for (const r of progress.reused) d.notify({ type: "BISECTION_RESULT_REUSED", ...r, at: d.now });
    for (const culprit of progress.culprits) {
      if (d.pr(culprit.pr) === undefined) continue;
      const detail =
        culprit.detail ??
        witnessDetail(progress.bisection, culprit.runId, "failed a test its own run failed");
      endPr(d, culprit.pr, "FAILED", culprit.reason, culprit.runId, batchId, detail);
    }
    for (const group of progress.confirmed) {
      if (canMergeFromBisection(d, graph, batchId, group.runId)) {
        const mine = d.editBatch(batchId);
        if (mine.bisection !== null) {
          mine.bisection = { ...mine.bisection, groupsMerged: (mine.bisection.groupsMerged ?? 0) + 1 };
        }
        detachGoodGroup(d, batchId, group.prs, group.runId);
      } else {
        const detail = witnessDetail(
          progress.bisection,
          group.runId,
          "passed: its own run's failure was a flake",
        );
        requeueGoodGroup(d, batchId, group.prs, group.runId, "BISECTION_PASSED", detail);
      }
    }
    for (const group of progress.released) {
      const who = group.by.map((n) => `#${n}`).join(", ");
      const detail = `${who} failed every test the batch failed, on a run of ${group.by.length === 1 ? "its" : "their"} own; tested again in line`;
      requeueGoodGroup(d, batchId, group.prs, group.runId, "FAILURE_EXPLAINED_ELSEWHERE", detail);
    }
    // Putting PRs back into the line can re-form this very batch (its members straddled them).
    if (d.batch(batchId)?.status !== "BISECTING" || d.batch(batchId)?.bisection == null) continue;
    if (progress.finished) {
      slots += cancelRuns(d, batchId, new Set());
      // Finished bisection runs were kept only while their result might still merge something.
      for (const run of d.allRuns()) if (run.batchId === batchId) d.deleteRun(run.id);
      d.deleteBatch(batchId);
      continue;
    }
    if (!startsRuns(d)) continue;
    // A PR that ended with the stack below it (see membership.ts) is no longer worth a run.
    const wanted = progress.needed.filter((n) => n.prs.every((p) => d.pr(p) !== undefined));
    slots += cancelRuns(d, batchId, new Set(wanted.map((n) => n.key)));
    for (const needed of wanted) {
      const bisection = d.batch(batchId)?.bisection as Bisection;
      if (bisection.running[needed.key] !== undefined) continue;
      if (slots <= 0) break;
      startBisectionRun(d, graph, batchId, needed.key, needed.prs, needed.base);
      slots--;
    }
  }
}

/** A PR's history names its witness (see witness.ts) when that run decided it: it was another batch's run. */
function witnessDetail(b: Bisection, runId: string, what: string): string | undefined {
  const witness = witnessResult(b);
  if (witness?.runId !== runId) return undefined;
  const stacked = (witness.prs ?? []).slice(1).map((n) => `#${n}`);
  return `the run built on it${stacked.length > 0 ? ` (with ${stacked.join(", ")})` : ""} ${what}`;
}

function detachGoodGroup(d: Draft, batchId: string, prs: readonly number[], runId: string): void {
  const present = prs.filter((n) => d.pr(n) !== undefined);
  const run = d.run(runId);
  const mine = d.editBatch(batchId);
  mine.prs = mine.prs.filter((n) => !present.includes(n));
  if (present.length === 0 || run === undefined) return;
  const id = d.nextId("batch");
  d.putBatch({
    id,
    prs: present,
    status: "PASSED",
    formingSince: d.now,
    closed: true,
    runId,
    failure: null,
    bisection: null,
  });
  d.editRun(runId).batchId = id;
  for (const n of present) {
    d.editPr(n).batchId = id;
    setPrState(d, n, "TESTS_PASSED", "BISECTION_PASSED", runId);
  }
}

/** Cancels this bisection's runs whose combination is no longer needed; returns slots freed. */
function cancelRuns(d: Draft, batchId: string, keep: ReadonlySet<string>): number {
  const batch = d.batch(batchId);
  let freed = 0;
  const running: Record<string, string> = {};
  for (const [key, runId] of Object.entries(batch?.bisection?.running ?? {})) {
    if (keep.has(key)) {
      running[key] = runId;
      continue;
    }
    if (d.run(runId)?.status === "RUNNING") {
      d.decide({ type: "CANCEL_TEST_RUN", runId, reason: "BATCH_REFORMED" });
      freed++;
    }
    d.deleteRun(runId);
  }
  if (batch?.bisection) d.editBatch(batchId).bisection = { ...batch.bisection, running };
  return freed;
}

function startBisectionRun(
  d: Draft,
  graph: LaneGraph,
  batchId: string,
  key: string,
  prs: readonly number[],
  base: readonly number[],
): void {
  const runId = d.nextId("run");
  const lane = graph.laneOf(batchId);
  const dependentPrs = base.filter((n) => d.pr(n) !== undefined);
  d.putRun({
    id: runId,
    kind: "bisection",
    batchId,
    prs: [...prs],
    base: dependentPrs,
    lane,
    startedAt: d.now,
    status: "RUNNING",
    finishedAt: null,
    failureReason: null,
    comboKey: key,
    ...(Object.values(d.state.merges).some((m) => movesTargetOf(d, { base: dependentPrs, prs }, m.prs))
      ? { targetMoved: true }
      : {}),
  });
  const mine = d.editBatch(batchId);
  const bisection = mine.bisection as Bisection;
  mine.bisection = { ...bisection, running: { ...bisection.running, [key]: runId } };
  d.decide({ type: "START_TEST_RUN", runId, kind: "bisection", batchId, lane, prs: [...prs], dependentPrs });
}
