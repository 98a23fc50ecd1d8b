import type { TextMapGetter, TextMapSetter } from "@opentelemetry/api";
import { Match, type MsgHdrs } from "nats";

/** Writes propagation fields (traceparent, tracestate, baggage) into NATS message headers. */
export const msgHdrsSetter: TextMapSetter<MsgHdrs> = {
  set(carrier, key, value) {
    carrier.set(key, value);
  },
};

/**
 * Reads propagation fields from NATS headers. Header names are matched ignoring case because
 * publishers in other languages canonicalise them ("Traceparent"); a message without headers
 * carries no context.
 */
export const msgHdrsGetter: TextMapGetter<MsgHdrs | undefined> = {
  keys(carrier) {
    return carrier ? carrier.keys() : [];
  },
  get(carrier, key) {
    const values = carrier?.values(key, Match.IgnoreCase) ?? [];
    return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
  },
};
