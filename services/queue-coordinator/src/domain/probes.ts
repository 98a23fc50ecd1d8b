import { isCurrentProbe, type Batch } from "./batch.js";
import type { Draft } from "./draft.js";
import { failuresStepAsideAtOnce, isOffline } from "./ejection.js";
import type { LaneGraph } from "./lanes.js";
import { batchFailureChance, NO_OBSERVATIONS } from "./observed-failures.js";
import { effectiveBisectionConcurrency } from "./queue-settings.js";
import { startsRuns } from "./target-hold.js";
import type { FailureReason } from "./reasons.js";
import { noteProbe, restartBatch } from "./restarts.js";
import { runningCount } from "./scheduling.js";
import { setPrState } from "./transitions.js";

/**
 * Probes: a closed batch that waits for a main slot is tested alone on the target with a spare
 * bisection slot. In one lane a failure costs every speculative run stacked on it; a probe that
 * fails first lets the batch step aside before anything is built on it (or, if its main run has
 * started meanwhile, at once instead of when that run ends). A probe never merges anything and
 * never fails a PR by itself: a failed probe only starts the batch's bisection, whose culprits
 * need runs of their own. A passing probe changes nothing: only a main run (or a bisection on an
 * unmoved target) can merge. Probes use only what the bisections leave of their pool, less a
 * reserve, so a bisection that starts later rarely waits for one.
 */
export function probeWaitingBatches(d: Draft, graph: LaneGraph): void {
  // With a pending-failure depth a failed batch waits in line for its successors (rule 13), and a
  // failed probe would step it aside without them.
  if (!startsRuns(d) || !d.state.settings.batch || !failuresStepAsideAtOnce(d)) return;
  const cap = effectiveBisectionConcurrency(d.state.settings);
  let slots = cap - reserveFor(cap) - runningCount(d, "bisection");
  if (slots <= 0) return;
  for (const batchId of graph.withStatus("QUEUED")) {
    if (slots <= 0) return;
    const batch = d.batch(batchId);
    if (batch === undefined || batch.runId !== null || batch.probe != null || isOffline(d, batchId)) continue;
    if (!worthProbing(d, graph, batchId, batch)) continue;
    startProbe(d, graph, batchId, batch);
    slots--;
  }
}

/**
 * A probe costs one run; a failure found in the chain instead costs the runs stacked on the
 * batch (up to concurrency - 1 of them behind it). Probe when the expected loss is higher.
 */
function worthProbing(d: Draft, graph: LaneGraph, batchId: string, batch: Readonly<Batch>): boolean {
  if (batch.prs.length < 2) return false;
  const seen = d.state.observed ?? NO_OBSERVATIONS;
  const chance = batchFailureChance(seen, batch.prs.length);
  const stacked = stackedBehind(d, graph, batchId, d.state.settings.concurrency - 1);
  return chance * stacked * (seen.probesUsed ?? 1) >= PROBE_BREAK_EVEN;
}

const PROBE_BREAK_EVEN = 1;

/**
 * In one lane every batch in line behind this one is built on it; in parallel lanes those that
 * depend on it, which in lanes that share targets are many. Counted up to `cap` only.
 */
function stackedBehind(d: Draft, graph: LaneGraph, batchId: string, cap: number): number {
  if (d.state.settings.mode !== "SINGLE") {
    return graph
      .descendantsOf(batchId)
      .filter((id) => !isOffline(d, id))
      .slice(0, cap).length;
  }
  let count = 0;
  const order = graph.batchOrder;
  for (let i = graph.indexOf(batchId) + 1; i < order.length && count < cap; i++) {
    if (!isOffline(d, order[i] as string)) count++;
  }
  return count;
}

/** Bisection slots probes leave free: a bisection decides merges, a probe only predicts. */
function reserveFor(cap: number): number {
  return Math.ceil(cap / 4);
}

function startProbe(d: Draft, graph: LaneGraph, batchId: string, batch: Readonly<Batch>): void {
  const runId = d.nextId("run");
  const lane = graph.laneOf(batchId);
  d.putRun({
    id: runId,
    kind: "bisection",
    batchId,
    prs: [...batch.prs],
    base: [],
    lane,
    startedAt: d.now,
    status: "RUNNING",
    finishedAt: null,
    failureReason: null,
    comboKey: null,
  });
  d.editBatch(batchId).probe = { runId, prs: [...batch.prs] };
  d.decide({
    type: "START_TEST_RUN",
    runId,
    kind: "bisection",
    batchId,
    lane,
    prs: [...batch.prs],
    dependentPrs: [],
  });
}

/**
 * A probe's result. A failure on the target alone is the batch's own (or a flake, which its
 * bisection then clears): the batch steps aside at once, every main run built on it restarts
 * without it, and its bisection may begin without waiting for the batches ahead (see
 * pending-failure.ts), since none of them was in the failing run.
 */
export function finishProbe(d: Draft, batchId: string, runId: string, reason: FailureReason | null): void {
  const batch = d.batch(batchId);
  const current = batch !== undefined && isCurrentProbe(batch, runId);
  // In time: before the batch started, or, for a failure, while its main run still tests.
  const inTime = current && (batch.status === "QUEUED" || (reason !== null && batch.status === "TESTING"));
  noteProbe(d, inTime);
  if (reason === null || !inTime) {
    d.deleteRun(runId);
    if (current && batch.probe != null)
      d.editBatch(batchId).probe = { ...batch.probe, passed: reason === null };
    return;
  }
  if (batch.status === "TESTING") restartBatch(d, batchId, "BATCH_REFORMED");
  const mine = d.setBatchStatus(batchId, "PENDING_FAILURE");
  mine.failure = { reason, at: d.now, runId, probe: true };
  mine.aside = true;
  mine.probe = null;
  for (const n of mine.prs) setPrState(d, n, "PENDING_FAILURE", reason, runId);
  d.notify({ type: "BATCH_PENDING_FAILURE", batchId, prs: [...mine.prs], runId, at: d.now });
  const prs = new Set(mine.prs);
  const affected = new Set<string>();
  for (const run of d.allRuns()) {
    if (run.kind === "main" && run.batchId !== batchId && run.base.some((p) => prs.has(p)))
      affected.add(run.batchId);
  }
  for (const id of affected) restartBatch(d, id, "ITEM_AHEAD_REMOVED");
  // The lanes change shape: the line now goes on without this batch.
  d.shape++;
}
