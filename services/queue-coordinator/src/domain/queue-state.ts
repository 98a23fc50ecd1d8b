import { REQUESTABLE_QUEUE_STATES, type QueueState, type RequestableQueueState } from "@mainline/contract";
import type { QueueMode } from "./queue-settings.js";

export type { QueueState, RequestableQueueState };
export { REQUESTABLE_QUEUE_STATES };

export interface ModeSwitch {
  toMode: QueueMode;
  /** The state the queue returns to once the switch completes. */
  resumeState: RequestableQueueState;
}

export function acceptsSubmissions(state: QueueState): boolean {
  return state === "RUNNING" || state === "PAUSED";
}

/** PAUSED holds every start and merge; every other state lets queued work proceed. */
export function isProgressing(state: QueueState): boolean {
  return state !== "PAUSED";
}
