import type { QueueMode } from "./queue-settings.js";
import type { RequestableQueueState } from "./queue-state.js";

/** A mode change waiting for the queue to empty (the queue is SWITCHING_MODES meanwhile). */
export interface ModeSwitch {
  toMode: QueueMode;
  /** The state the queue returns to once the switch completes. */
  resumeState: RequestableQueueState;
}
