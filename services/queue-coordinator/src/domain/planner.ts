import { InternalError } from "@mainline/kit/errors/index";
import { applyEvent, finishModeSwitch } from "./apply-event.js";
import { closeFormingBatches, formBatchesAndLanes, formingDeadline } from "./batching.js";
import { advanceBisections } from "./bisection-runner.js";
import type { Decision, Notice } from "./decisions.js";
import { Draft } from "./draft.js";
import type { QueueEvent } from "./events.js";
import type { LaneGraph } from "./lanes.js";
import { planMerges } from "./merging.js";
import { probeWaitingBatches } from "./probes.js";
import { resolvePendingFailures } from "./pending-failure.js";
import type { PlannerState } from "./planner-state.js";
import { DEFAULT_PLANNER_OPTIONS, type PlannerOptions } from "./planner-options.js";
import { restartBatch } from "./restarts.js";
import { startMainRuns } from "./scheduling.js";
import { ejectFailures, isOffline, restartStaleRuns } from "./ejection.js";
import { expireTimedOutRuns, nextTimeoutAt } from "./test-results.js";

export interface PlanningStep {
  /** The new state; the input state is left untouched (unchanged parts are shared). */
  state: PlannerState;
  /** Work for the shell, in the order it was decided. */
  decisions: Decision[];
  /** Lifecycle facts to publish, in order. */
  notices: Notice[];
  /** The next time at which time alone changes something (a batch deadline, a timeout). */
  wakeAt: number | null;
}

const MAX_ROUNDS = 64;

/**
 * The merge-queue planner: a pure function of (state, event, time). No I/O, no clock, no
 * randomness; ids come from counters in the state, so the same inputs give the same outputs.
 * Throws a typed error (InvalidArgument, NotFound, AlreadyExists, FailedPrecondition) when the
 * event is a command that cannot be honoured; then nothing is applied.
 */
export function plan(
  state: PlannerState,
  event: QueueEvent,
  now: number,
  options: PlannerOptions = DEFAULT_PLANNER_OPTIONS,
): PlanningStep {
  const d = new Draft(state, now, options);
  applyEvent(d, event);
  settle(d);
  return { state: d.state, decisions: d.decisions, notices: d.notices, wakeAt: wakeAt(d) };
}

/**
 * Runs the rules until nothing changes: each round rebuilds the lanes (cheap, linear), then
 * decides merges, resolves failures and bisections, then fills free test slots. A round that changes
 * the queue's shape (a PR leaves, a batch splits) is followed by another.
 */
function settle(d: Draft): void {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    expireTimedOutRuns(d);
    const graph = formBatchesAndLanes(d);
    const shape = fingerprint(d);
    restartStaleRuns(d, graph);
    ejectFailures(d, graph);
    if (fingerprint(d) !== shape) continue;
    restartBehindUrgent(d, graph);
    // Merges first: a passing successor rescues a pending failure before it is resolved (rule 14).
    planMerges(d, graph);
    resolvePendingFailures(d, graph);
    if (fingerprint(d) !== shape) continue;
    advanceBisections(d, graph);
    if (fingerprint(d) !== shape) continue;
    closeFormingBatches(d, graph);
    startMainRuns(d, graph);
    probeWaitingBatches(d, graph);
    if (finishModeSwitch(d)) continue;
    return;
  }
  throw new InternalError("the planner did not settle");
}

function fingerprint(d: Draft): number {
  return d.shape;
}

/**
 * Only urgent PRs interrupt running tests: everything behind one in its lane restarts. A failed
 * batch resolved aside is not in the line: its search goes on (restarting it would forget its
 * failure and put a batch known to fail back in line).
 */
function restartBehindUrgent(d: Draft, graph: LaneGraph): void {
  const inserted = d.urgentInsertions;
  d.urgentInsertions = [];
  for (const n of inserted) {
    const batchId = d.pr(n)?.batchId;
    if (batchId === null || batchId === undefined) continue;
    for (const behind of graph.descendantsOf(batchId)) {
      if (isOffline(d, behind)) continue;
      restartBatch(d, behind, "URGENT_PR_AHEAD");
    }
  }
}

function wakeAt(d: Draft): number | null {
  let next = nextTimeoutAt(d);
  for (const id of d.graph?.withStatus("FORMING") ?? []) {
    const batch = d.batch(id);
    // A batch past its deadline waits for a slot, and a slot frees only with an event.
    const deadline = batch?.status === "FORMING" ? formingDeadline(d, batch) : 0;
    if (deadline > d.now) next = Math.min(next ?? Infinity, deadline);
  }
  return next;
}
