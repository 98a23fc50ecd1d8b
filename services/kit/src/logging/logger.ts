import { trace } from "@opentelemetry/api";
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

/**
 * JSON lines on stdout, or on `destination` (benchmarks write the same lines to /dev/null, to pay their cost).
 * Every line written inside an active span carries its trace and span ids, so a log line leads to the trace of
 * the request that caused it.
 */
export function createLogger(service: string, level = "info", destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin() {
      const span = trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
