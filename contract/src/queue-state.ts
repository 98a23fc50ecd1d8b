/**
 * RUNNING: PRs enter and merge. PAUSED: nothing starts testing and nothing merges, order kept, submissions
 * accepted. DRAINING: no new PRs; queued ones finish and merge. SWITCHING_MODES: entered by the planner itself
 * when the mode changes with PRs in flight; behaves like DRAINING until the queue is empty.
 */
export const QUEUE_STATES = ["RUNNING", "PAUSED", "DRAINING", "SWITCHING_MODES"] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** The states a user may ask for; SWITCHING_MODES is never requested, only entered. */
export const REQUESTABLE_QUEUE_STATES = [
  "RUNNING",
  "PAUSED",
  "DRAINING",
] as const satisfies readonly QueueState[];
export type RequestableQueueState = (typeof REQUESTABLE_QUEUE_STATES)[number];
