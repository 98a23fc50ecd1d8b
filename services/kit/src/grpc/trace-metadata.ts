import { context, propagation, type Context } from "@opentelemetry/api";
import { Metadata } from "@grpc/grpc-js";

/** W3C trace context travels in gRPC metadata, so a REST call can be followed into every service. */
export function injectTraceContext(metadata: Metadata, from: Context = context.active()): void {
  propagation.inject(from, metadata, {
    set: (carrier, key, value) => carrier.set(key, value),
  });
}

export function extractTraceContext(metadata: Metadata): Context {
  return propagation.extract(context.active(), metadata, {
    get: (carrier, key) => {
      const values = carrier.get(key);
      return values.length === 0 ? undefined : values.map(String);
    },
    keys: (carrier) => Object.keys(carrier.getMap()),
  });
}
