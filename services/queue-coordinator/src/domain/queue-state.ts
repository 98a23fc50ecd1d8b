import { REQUESTABLE_QUEUE_STATES, type QueueState, type RequestableQueueState } from "@mainline/contract";

export type { QueueState, RequestableQueueState };
export { REQUESTABLE_QUEUE_STATES };

export function acceptsSubmissions(state: QueueState): boolean {
  return state === "RUNNING" || state === "PAUSED";
}

/** PAUSED holds every start and merge; every other state lets queued work proceed. */
export function isProgressing(state: QueueState): boolean {
  return state !== "PAUSED";
}
