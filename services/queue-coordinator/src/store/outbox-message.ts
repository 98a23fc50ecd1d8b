import type { TraceCarrier } from "@mainline/kit/bus/index";

/** A message owed to the bus, stored encoded with the state change that produced it. */
export interface OutboxMessage {
  subject: string;
  msgId: string;
  /** Protobuf bytes, base64. */
  payload: string;
  /**
   * The trace of the step that decided the message (e.g. the submit call), so that its publish span joins that
   * trace even when the timekeeper or another step flushes it later. Absent in entries written before it existed.
   */
  trace?: TraceCarrier;
}
