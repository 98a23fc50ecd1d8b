import type { BatchStatus } from "./batch.js";
import { LaneGraph } from "./lanes.js";
import type { PlannerState } from "./planner-state.js";
import { prsDecidedBy } from "./test-run.js";

/** Where the planner put a queued PR: its batch, the batch's status and the lane the batch runs in. */
export interface Placement {
  batchId: string;
  batchStatus: BatchStatus;
  /** Named after the batch at the head of its first chain of prerequisites (see LaneGraph.laneOf). */
  lane: string;
}

/**
 * Each queued PR's batch and lane, read from a stored planner state without changing it (for getQueue): the
 * batches planned and not yet started show there with the ones under test. PRs not in a batch yet are left out.
 */
export function batchPlacement(state: Readonly<PlannerState>): Map<number, Placement> {
  const placed = new Map<number, Placement>();
  const order = state.order.filter((n) => {
    const id = state.prs[String(n)]?.batchId;
    return id !== null && id !== undefined && state.batches[id] !== undefined;
  });
  let graph: LaneGraph;
  try {
    graph = LaneGraph.build(
      order,
      state.prs,
      (id) => state.batches[id],
      state.settings.mode,
      () => {
        throw new Error("every PR of the order given has a batch");
      },
      (id) => state.batches[id]?.aside === true,
    );
  } catch {
    return placed;
  }
  for (const n of order) {
    const batchId = state.prs[String(n)]!.batchId!;
    placed.set(n, { batchId, batchStatus: state.batches[batchId]!.status, lane: graph.laneOf(batchId) });
  }
  return placed;
}

/**
 * The run a queued PR is under test in, for getQueue's testRunId (an external CI reads it to know what to test).
 * Only a run that decides the PR (see prsDecidedBy): a CI that took a witness for the run of a PR stacked on it
 * would leave that PR's own run unreported until the witness ended.
 */
export function runTesting(state: Readonly<PlannerState>, pr: number): string | undefined {
  for (const run of Object.values(state.runs)) {
    if (run.status === "RUNNING" && prsDecidedBy(run).includes(pr)) return run.id;
  }
  return undefined;
}
