/**
 * RUNNING: PRs enter and merge. PAUSED: nothing starts testing and nothing merges, order kept,
 * submissions accepted. DRAINING: no new PRs; queued ones finish and merge. SWITCHING_MODES:
 * entered by the planner itself when the mode changes with PRs in flight; behaves like DRAINING
 * until the queue is empty, then the new mode applies.
 */
export type QueueState = "RUNNING" | "PAUSED" | "DRAINING" | "SWITCHING_MODES";

/** The states a user may ask for; SWITCHING_MODES is never requested, only entered. */
export type RequestableQueueState = Exclude<QueueState, "SWITCHING_MODES">;

export const REQUESTABLE_QUEUE_STATES: readonly RequestableQueueState[] = ["RUNNING", "PAUSED", "DRAINING"];

export function acceptsSubmissions(state: QueueState): boolean {
  return state === "RUNNING" || state === "PAUSED";
}

/** PAUSED holds every start and merge; every other state lets queued work proceed. */
export function isProgressing(state: QueueState): boolean {
  return state !== "PAUSED";
}
