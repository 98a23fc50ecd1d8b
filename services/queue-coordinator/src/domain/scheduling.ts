import { type RunKind } from "@mainline/contract";
import type { Draft } from "./draft.js";
import { isOffline } from "./ejection.js";
import type { LaneGraph } from "./lanes.js";
import { URGENT_PRIORITY } from "./priority.js";
import { startsRuns } from "./target-hold.js";
import { restartBatch } from "./restarts.js";
import { setPrState } from "./transitions.js";

function isUrgent(d: Draft, batchId: string): boolean {
  const first = d.batch(batchId)?.prs[0];
  return first !== undefined && d.pr(first)?.priority.value === URGENT_PRIORITY;
}

export function runningCount(d: Draft, kind: RunKind): number {
  let count = 0;
  for (const run of d.allRuns()) if (run.kind === kind && run.status === "RUNNING") count++;
  return count;
}

/**
 * Speculative testing: each queued batch is tested on the target plus every PR ahead of it in
 * its lane that has not failed, earliest first, with at most `concurrency` main runs. A batch
 * waits while anything ahead of it is still forming (its base is not known yet). An urgent
 * batch that finds no free slot takes the slot of the latest non-urgent run.
 */
export function startMainRuns(d: Draft, graph: LaneGraph): void {
  if (!startsRuns(d)) return;
  let slots = d.state.settings.concurrency - runningCount(d, "main");
  // Urgent PRs always form a prefix of the order, so without one first, a full queue is done.
  const first = d.state.order[0];
  const anyUrgent = first !== undefined && d.pr(first)?.priority.value === URGENT_PRIORITY;
  if (slots <= 0 && !anyUrgent) return;
  const blocked = blockedBatches(d, graph);
  const overtaken = new Set(graph.withStatus("QUEUED").filter((id) => overtakenByMerge(graph, d, id)));
  for (const batchId of [...graph.withStatus("QUEUED")]) {
    if (slots <= 0 && !anyUrgent) return;
    const batch = d.batch(batchId);
    if (batch?.status !== "QUEUED" || blocked.has(batchId) || builtOnOvertaken(graph, overtaken, batchId))
      continue;
    if (slots <= 0) {
      if (!isUrgent(d, batchId) || !preemptFor(d, graph, batchId)) continue;
      slots++;
    }
    startMainRun(d, graph, batchId);
    slots--;
  }
}

/**
 * A batch back in line behind which a merge is in flight: it stepped aside after a failure, a batch behind it
 * in its lane overtook it and is merging, then a restart put it back ahead. A run now would leave that merge
 * out and be stale the moment it lands; it starts once the merge has finished.
 */
function overtakenByMerge(graph: LaneGraph, d: Draft, batchId: string): boolean {
  return graph.descendantsOf(batchId).some((id) => d.batch(id)?.status === "MERGING");
}

/**
 * The batch, or one it would be built on, was overtaken by a merge in flight (`overtaken`: the queued batches
 * overtakenByMerge holds; one not yet started is queued). A run built on such a batch leaves the merge out as well:
 * with optimistic merging its pass would merge the overtaken batch untested with what landed under it. Found by
 * the landing property (planner-landing.unit.test.ts).
 */
function builtOnOvertaken(graph: LaneGraph, overtaken: ReadonlySet<string>, batchId: string): boolean {
  if (overtaken.size === 0) return false;
  return overtaken.has(batchId) || graph.ancestorsOf(batchId).some((id) => overtaken.has(id));
}

/**
 * Batches that cannot start yet: something ahead of them is still forming (their base is not
 * known yet), or a failed batch still in line holds them (heldByFailures).
 */
export function blockedBatches(d: Draft, graph: LaneGraph): ReadonlySet<string> {
  if (graph.withStatus("FORMING").length === 0 && !hasFailureInLine(d, graph)) return new Set();
  return blockedBehind(d, graph, heldByFailures(d, graph));
}

function blockedBehind(d: Draft, graph: LaneGraph, held: ReadonlySet<string>): ReadonlySet<string> {
  const blocked = new Set<string>();
  for (const batchId of graph.batchOrder) {
    if (d.batch(batchId)?.status === "FORMING" || waitsBehind(graph, blocked, held, batchId))
      blocked.add(batchId);
  }
  return blocked;
}

/** Whether a forming batch, once closed, could start: nothing ahead of it keeps it waiting (see blockedBatches). */
export function startsOnceClosed(d: Draft, graph: LaneGraph): (batchId: string) => boolean {
  // Computed only when a batch could close for a slot: most rounds none can.
  let blocked: ReadonlySet<string> | undefined;
  let held: ReadonlySet<string> | undefined;
  return (batchId) => {
    held ??= heldByFailures(d, graph);
    blocked ??= blockedBehind(d, graph, held);
    return !waitsBehind(graph, blocked, held, batchId);
  };
}

function waitsBehind(
  graph: LaneGraph,
  blocked: ReadonlySet<string>,
  held: ReadonlySet<string>,
  batchId: string,
): boolean {
  return held.has(batchId) || graph.depsOf(batchId).some((dep) => blocked.has(dep));
}

/**
 * The batches a failed batch still in line holds back. With no pending-failure depth, every batch that
 * depends on it: a run on top of a failed batch is wasted whatever happens (the failure is real and the
 * batch steps aside, every run containing it restarting, or a batch ahead of it failed and it restarts
 * too); runs already in flight go on (one that passes proves the failure a flake). In parallel lanes
 * only the batches that depend on the failed one wait (once every lane shared its batches, see
 * openBatchInLane in batching.ts, most do, and their runs were cancelled as often as in one lane).
 * With a depth D, all but its first D successors (rule 13): one of their runs passing may rescue it,
 * a run of any batch after them rescues nothing. Without that, every slot that freed during the wait
 * started a run on top of the failed batch: on failing-1 with depth 1, 271 of 314 finished main runs
 * failed.
 */
function heldByFailures(d: Draft, graph: LaneGraph): ReadonlySet<string> {
  const held = new Set<string>();
  const depth = d.state.settings.pendingFailureDepth;
  for (const failed of graph.withStatus("PENDING_FAILURE")) {
    if (isOffline(d, failed)) continue;
    for (const id of graph.descendantsOf(failed).slice(depth)) held.add(id);
  }
  return held;
}

function hasFailureInLine(d: Draft, graph: LaneGraph): boolean {
  return graph.withStatus("PENDING_FAILURE").some((id) => !isOffline(d, id));
}

function preemptFor(d: Draft, graph: LaneGraph, urgentBatch: string): boolean {
  const ownIndex = graph.indexOf(urgentBatch);
  let victim: string | null = null;
  let victimIndex = ownIndex;
  for (const run of d.allRuns()) {
    if (run.kind !== "main" || run.status !== "RUNNING") continue;
    const index = graph.indexOf(run.batchId);
    if (index > victimIndex && !isUrgent(d, run.batchId)) {
      victim = run.batchId;
      victimIndex = index;
    }
  }
  if (victim === null) return false;
  restartBatch(d, victim, "PREEMPTED_BY_URGENT");
  return true;
}

function startMainRun(d: Draft, graph: LaneGraph, batchId: string): void {
  const batch = d.setBatchStatus(batchId, "TESTING");
  const base = graph.prsOf(d.state.batches, graph.ancestorsOf(batchId));
  const runId = d.nextId("run");
  const lane = graph.laneOf(batchId);
  d.putRun({
    id: runId,
    kind: "main",
    batchId,
    prs: [...batch.prs],
    base,
    lane,
    startedAt: d.now,
    status: "RUNNING",
    finishedAt: null,
    failureReason: null,
    comboKey: null,
  });
  batch.runId = runId;
  for (const n of batch.prs) {
    d.editPr(n).startedTesting = true;
    setPrState(d, n, "TESTING", "TEST_RUN_STARTED", runId);
  }
  d.decide({
    type: "START_TEST_RUN",
    runId,
    kind: "main",
    batchId,
    lane,
    prs: [...batch.prs],
    dependentPrs: base,
  });
}
