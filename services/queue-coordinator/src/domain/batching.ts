import { adaptiveBatchSize } from "./adaptive-batching.js";
import type { Batch } from "./batch.js";
import type { Draft } from "./draft.js";
import { isOffline } from "./ejection.js";
import { LaneGraph, type PlaceInBatch } from "./lanes.js";
import { batchesAlone, dissolveBatches, untestedInLine } from "./queue-order.js";
import { testedSinceAdmitted } from "./pull-request.js";
import { stackBatchToJoin } from "./stack.js";
import { startsRuns } from "./target-hold.js";
import { blockedBatches, runningCount, startsOnceClosed } from "./scheduling.js";

const MINUTE = 60_000;
/** Dissolved batches are placed in line at once, so one pass settles them; a few more at most. */
const MAX_REFORMS = 4;

/** The largest number of PRs one batch may hold under the current settings and load. */
export function targetBatchSize(d: Draft): number {
  const settings = d.state.settings;
  if (!settings.batch) return 1;
  if (settings.batchingMode !== "ADAPTIVE") return settings.batchingMinSize;
  const free = settings.concurrency - runningCount(d, "main");
  return adaptiveBatchSize(
    settings.batchingMinSize,
    settings.concurrency,
    d.state.observed,
    untestedInLine(d),
    free,
  );
}

export function formingDeadline(d: Draft, batch: Readonly<Batch>): number {
  return batch.formingSince + d.state.settings.batchingMaxWaitTimeMinutes * MINUTE;
}

/**
 * Builds the lanes and, on the way, puts every queued PR without a batch into one (rules 1-7),
 * in FIFO order. A PR joins the latest batch among its prerequisites' while it is open (see
 * joinable), else in parallel lanes the earliest open batch of its lane after them (see
 * openBatchInLane), so the batch graph stays acyclic. No-batch and urgent PRs get a batch of
 * their own and never delay or restart anyone. A batch stops forming when it is full, when
 * nothing can join it anymore, or when its wait time is over and a test slot can take it. Max
 * wait is how long to wait to fill a batch before testing starts (rule 3): while every slot is
 * busy a batch keeps filling, since closing it early would only make it wait, queued and small,
 * while the PRs behind pile up.
 */
export function formBatchesAndLanes(d: Draft): LaneGraph {
  const size = targetBatchSize(d);
  const place: PlaceInBatch = (n, depBatches, indexOf, sameLane) =>
    assign(d, n, { depBatches, indexOf, sameLane }, size);
  for (let attempt = 0; ; attempt++) {
    const graph = LaneGraph.build(
      d.state.order,
      d.state.prs,
      (id) => d.batch(id),
      d.state.settings.mode,
      place,
      (id) => isOffline(d, id),
    );
    // Dissolving makes their PRs batch-less; the next build places them in line. A batch being
    // merged cannot be dissolved; it leaves the line with its merge.
    const straddling = graph.straddling.filter((id) => d.batch(id)?.status !== "MERGING");
    if (straddling.length > 0 && attempt < MAX_REFORMS) {
      dissolveBatches(d, straddling);
      continue;
    }
    d.graph = graph;
    return graph;
  }
}

/**
 * Closes the forming batches that are full, that nothing can join anymore, or whose wait time is
 * over while a test slot can take them. Runs just before slots are filled, after every restart of
 * the round, so that a batch never closes for a slot that a restarted batch then takes.
 */
export function closeFormingBatches(d: Draft, graph: LaneGraph): void {
  const size = targetBatchSize(d);
  let free = freeMainSlots(d, graph);
  const canStart = startsOnceClosed(d, graph);
  for (const id of [...graph.withStatus("FORMING")]) {
    const batch = d.batch(id);
    if (batch === undefined) continue;
    if (
      batch.prs.length >= size ||
      nothingCanJoin(d, graph, id) ||
      (free > 0 && (d.now >= formingDeadline(d, batch) || cannotGrow(d, batch)) && canStart(id))
    ) {
      d.setBatchStatus(id, "QUEUED");
      free--;
    }
  }
}

/**
 * A batch led by a PR that a bisection sent back into line (it was tested once already in this stay) has had its
 * wait; when no other PR is waiting and no failed batch is being searched (whose good PRs would come back into
 * line to join it), waiting out the rest of its max wait would only leave a test slot idle.
 */
function cannotGrow(d: Draft, batch: Readonly<Batch>): boolean {
  const first = d.pr(batch.prs[0] as number);
  if (first === undefined || !testedSinceAdmitted(first)) return false;
  for (const n of d.state.order) {
    if (batch.prs.includes(n)) continue;
    const state = d.pr(n)?.state;
    if (state === "PENDING" || state === "PENDING_FAILURE") return false;
  }
  return true;
}

/**
 * In one lane, a later PR that depends on the batch without joining it means nobody can join it
 * anymore. In parallel lanes others still can, unless what waits behind it is a batch that must
 * not be delayed (no-batch or urgent).
 */
function nothingCanJoin(d: Draft, graph: LaneGraph, batchId: string): boolean {
  const dependents = graph.dependentsOf(batchId);
  if (d.state.settings.mode === "SINGLE") return dependents.length > 0;
  return dependents.some((id) => d.batch(id)?.closed === true);
}

/**
 * Main slots that a batch closing now could take: free slots less those that batches already
 * queued, and free to start, will take first. Nothing starts while the queue is paused.
 */
export function freeMainSlots(d: Draft, graph: LaneGraph): number {
  if (!startsRuns(d)) return 0;
  let free = d.state.settings.concurrency - runningCount(d, "main");
  if (free <= 0) return free;
  const blocked = blockedBatches(d, graph);
  for (const id of graph.withStatus("QUEUED")) if (d.batch(id)?.runId === null && !blocked.has(id)) free--;
  return free;
}

/** What the lane graph knows, while it is built, about the batches placed before a PR (see PlaceInBatch). */
interface Placing {
  depBatches: readonly string[];
  indexOf: (id: string) => number;
  sameLane: (a: string, b: string) => boolean;
}

/**
 * A PR joins the latest of its prerequisites' batches when that one is still open. The batch
 * then also waits for the PR's other prerequisites, which are all earlier in the queue (the
 * graph stays acyclic): in parallel mode a PR that touches two lanes batches where they meet
 * instead of starting a batch of one.
 */
function joinable(d: Draft, at: Placing, size: number): Readonly<Batch> | undefined {
  let latest: string | undefined;
  for (const id of at.depBatches)
    if (latest === undefined || at.indexOf(id) > at.indexOf(latest)) latest = id;
  const candidate = latest === undefined ? undefined : d.batch(latest);
  if (candidate?.status !== "FORMING" || candidate.closed || candidate.prs.length >= size) return undefined;
  return candidate;
}

function assign(d: Draft, n: number, at: Placing, size: number): string {
  const stack = stackBatchToJoin(d, n);
  if (stack !== undefined) {
    d.editBatch(stack).prs.push(n);
    d.editPr(n).batchId = stack;
    return stack;
  }
  const entry = d.pr(n);
  const closed = entry === undefined || batchesAlone(entry) || size === 1;
  const open = closed ? undefined : (joinable(d, at, size) ?? openBatchInLane(d, at, size));
  if (open !== undefined) {
    d.editBatch(open.id).prs.push(n);
    d.editPr(n).batchId = open.id;
    return open.id;
  }
  const id = d.nextId("batch");
  d.putBatch({
    id,
    prs: [n],
    status: closed ? "QUEUED" : "FORMING",
    formingSince: entry?.enqueuedAt ?? d.now,
    closed,
    runId: null,
    failure: null,
    bisection: null,
  });
  d.editPr(n).batchId = id;
  return id;
}

/**
 * In parallel lanes a PR whose prerequisites' batches are all closed joins the earliest open batch of its lane
 * that comes after them (the graph stays acyclic): a batch its prerequisites link it to, however far, since its
 * run is built on them anyway. A batch of its own would split the same slots into more, smaller runs (parallel-2,
 * per seed over ten: 72 of 170 main runs tested fewer than 4 PRs, against 10 of 145 in one lane). A PR that
 * touches nothing in line never joins another lane's batch (rule 6): it starts its own, which is what lets it
 * pass a failure elsewhere. The sixth pass joined any lane's batch while every slot was busy, which broke rule 6;
 * this is as good or better on parallel-1 and -3 (docs/planner-history.md, ninth pass).
 */
function openBatchInLane(d: Draft, at: Placing, size: number): Readonly<Batch> | undefined {
  if (d.state.settings.mode === "SINGLE" || at.depBatches.length === 0) return undefined;
  let after = -1;
  for (const id of at.depBatches) after = Math.max(after, at.indexOf(id));
  let earliest: Readonly<Batch> | undefined;
  let earliestAt = Infinity;
  for (const batch of Object.values(d.state.batches)) {
    if (batch.status !== "FORMING" || batch.closed || batch.prs.length >= size) continue;
    const index = at.indexOf(batch.id);
    if (index <= after || index >= earliestAt) continue;
    if (!at.depBatches.some((dep) => at.sameLane(dep, batch.id))) continue;
    earliest = batch;
    earliestAt = index;
  }
  return earliest;
}
