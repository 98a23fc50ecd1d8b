import type { Batch } from "./batch.js";
import type { Draft } from "./draft.js";
import { isOffline } from "./ejection.js";
import { LaneGraph } from "./lanes.js";
import { URGENT_PRIORITY } from "./priority.js";
import { isProgressing } from "./queue-state.js";
import { runningCount } from "./scheduling.js";

const MINUTE = 60_000;

/** The largest number of PRs one batch may hold under the current settings. */
export function targetBatchSize(d: Draft): number {
  return d.state.settings.batch ? d.state.settings.batchingMinSize : 1;
}

export function formingDeadline(d: Draft, batch: Readonly<Batch>): number {
  return batch.formingSince + d.state.settings.batchingMaxWaitTimeMinutes * MINUTE;
}

/**
 * Builds the lanes and, on the way, puts every queued PR without a batch into one (rules 1-7),
 * in FIFO order. A PR joins the open batch ahead of it only when all its prerequisites are in
 * that batch, so batches never mix lanes and the batch graph stays acyclic. No-batch and urgent
 * PRs get a batch of their own and never delay or restart anyone. A batch stops forming when it
 * is full, or when a later PR depends on it without joining it (nothing could join it anymore),
 * or when its wait time is over and a test slot can take it. Max wait is how long to wait to fill
 * a batch before testing starts (rule 3): while every slot is busy a batch keeps filling, since
 * closing it early would only make it wait, queued and small, while the PRs behind pile up.
 */
export function formBatchesAndLanes(d: Draft): LaneGraph {
  const size = targetBatchSize(d);
  const place = (n: number, depBatches: readonly string[]): string => assign(d, n, depBatches, size);
  const graph = LaneGraph.build(
    d.state.order,
    d.state.prs,
    (id) => d.batch(id),
    d.state.settings.mode,
    place,
    (id) => isOffline(d, id),
  );
  d.graph = graph;
  let free = freeMainSlots(d, graph);
  for (const id of [...graph.withStatus("FORMING")]) {
    const batch = d.batch(id);
    if (batch === undefined) continue;
    // A dependent batch means a later PR depends on this one without having joined it.
    const complete = batch.prs.length >= size || graph.dependentsOf(id).length > 0;
    if (complete || (free > 0 && d.now >= formingDeadline(d, batch))) {
      d.setBatchStatus(id, "QUEUED");
      free--;
    }
  }
  return graph;
}

/**
 * Main slots that a batch closing now could take: free slots less those that batches already
 * queued will take first. Nothing starts while the queue is paused.
 */
export function freeMainSlots(d: Draft, graph: LaneGraph): number {
  if (!isProgressing(d.state.queueState)) return 0;
  let free = d.state.settings.concurrency - runningCount(d, "main");
  for (const id of graph.withStatus("QUEUED")) if (d.batch(id)?.runId === null) free--;
  return free;
}

function assign(d: Draft, n: number, depBatches: readonly string[], size: number): string {
  const entry = d.pr(n);
  const closed =
    entry === undefined || entry.noBatch || entry.priority.value === URGENT_PRIORITY || size === 1;
  const only = depBatches.length === 1 ? d.batch(depBatches[0] as string) : undefined;
  if (!closed && only !== undefined && only.status === "FORMING" && !only.closed && only.prs.length < size) {
    d.editBatch(only.id).prs.push(n);
    d.editPr(n).batchId = only.id;
    return only.id;
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
