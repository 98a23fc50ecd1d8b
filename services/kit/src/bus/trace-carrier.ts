import { context, propagation, ROOT_CONTEXT, type Context } from "@opentelemetry/api";

/**
 * The W3C propagation fields (traceparent, tracestate, baggage) of a context, as plain strings that can be
 * stored. A message decided now but published later (an outbox entry) keeps the trace of what caused it.
 */
export type TraceCarrier = Record<string, string>;

/** The active context's propagation fields; empty when nothing is being traced. */
export function captureTraceCarrier(from: Context = context.active()): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(from, carrier);
  return carrier;
}

/** The context a stored carrier describes; the root context (a new trace) for an empty one. */
export function contextOfTraceCarrier(carrier: TraceCarrier): Context {
  return propagation.extract(ROOT_CONTEXT, carrier);
}
