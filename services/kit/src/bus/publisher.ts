import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { headers as natsHeaders, type JetStreamClient, type PubAck } from "nats";
import { InvalidArgumentError } from "../errors/index.js";
import type { MessageCodec } from "./codec.js";
import { failSpan } from "../telemetry/in-span.js";
import { JETSTREAM_ATTEMPTS, withAttempts } from "./jetstream-attempts.js";
import { busTracer, MessagingAttr } from "./telemetry.js";
import { contextOfTraceCarrier, type TraceCarrier } from "./trace-carrier.js";
import { msgHdrsSetter } from "./trace-headers.js";

export interface PublishOptions {
  /**
   * Deterministic id of this message (e.g. `test-run-requested:<runId>`): the stream drops a
   * second message with the same id inside its duplicate window, so a republish after a crash
   * (the outbox) stores nothing twice.
   */
  msgId: string;
  /** PubAck wait in ms, one attempt; when omitted, JETSTREAM_ATTEMPTS (short attempts, sent again). */
  timeoutMs?: number;
  /**
   * The trace of the cause, captured when the message was decided (captureTraceCarrier), for a message
   * published later, e.g. from an outbox by whoever flushes it. The active context when omitted.
   */
  traceCarrier?: TraceCarrier;
}

/**
 * Publishes one typed message to JetStream and waits for the stream to store it. The PubAck's
 * `duplicate` flag is true when the msgId was already stored within the duplicate window.
 * The W3C trace context of the PRODUCER span travels in the message headers.
 */
export async function publish<T>(
  js: JetStreamClient,
  subject: string,
  codec: MessageCodec<T>,
  message: T,
  options: PublishOptions,
): Promise<PubAck> {
  if (options.msgId.trim() === "") throw new InvalidArgumentError("msgId", "a non-empty deterministic id");
  // Encode before the span: a message that cannot be encoded is a bug, not a publish attempt.
  const data = codec.encode(message).finish();
  const parent = options.traceCarrier ? contextOfTraceCarrier(options.traceCarrier) : context.active();
  const span = busTracer().startSpan(
    `${subject} publish`,
    {
      kind: SpanKind.PRODUCER,
      attributes: {
        [MessagingAttr.system]: "nats",
        [MessagingAttr.destination]: subject,
        [MessagingAttr.operation]: "publish",
        [MessagingAttr.messageId]: options.msgId,
      },
    },
    parent,
  );
  const headers = natsHeaders();
  propagation.inject(trace.setSpan(parent, span), headers, msgHdrsSetter);
  try {
    // The message id makes a repeat harmless: sent again while no stream leader answers (see withAttempts).
    const ack = await withAttempts(
      (timeout) => js.publish(subject, data, { msgID: options.msgId, headers, timeout }),
      options.timeoutMs === undefined
        ? JETSTREAM_ATTEMPTS
        : { ...JETSTREAM_ATTEMPTS, attemptMs: options.timeoutMs, budgetMs: options.timeoutMs },
    );
    span.setAttribute("messaging.nats.duplicate", ack.duplicate);
    return ack;
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}
