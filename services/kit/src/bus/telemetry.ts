import { trace, type Tracer } from "@opentelemetry/api";

export const BUS_TRACER_NAME = "mainline-bus";

/** Looked up per use so that a tracer provider registered after import (the SDK at start-up) is honoured. */
export function busTracer(): Tracer {
  return trace.getTracer(BUS_TRACER_NAME);
}

/** Semantic-convention attribute names for messaging spans (kept local: the incubating set is unstable). */
export const MessagingAttr = {
  system: "messaging.system",
  destination: "messaging.destination.name",
  operation: "messaging.operation.type",
  messageId: "messaging.message.id",
  deliveryCount: "messaging.nats.delivery_count",
  consumerGroup: "messaging.consumer.group.name",
} as const;
