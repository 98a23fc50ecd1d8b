import type { Batch } from "./batch.js";
import type { Draft } from "./draft.js";
import { LaneGraph } from "./lanes.js";
import { URGENT_PRIORITY } from "./priority.js";

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
 * is full, when its wait time is over, or when a later PR depends on it without joining it
 * (nothing could join it anymore).
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
  );
  d.graph = graph;
  for (const id of [...graph.withStatus("FORMING")]) {
    const batch = d.batch(id);
    if (batch === undefined) continue;
    // A dependent batch means a later PR depends on this one without having joined it.
    const complete = batch.prs.length >= size || graph.dependentsOf(id).length > 0;
    if (complete || d.now >= formingDeadline(d, batch)) {
      d.setBatchStatus(id, "QUEUED");
    }
  }
  return graph;
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
