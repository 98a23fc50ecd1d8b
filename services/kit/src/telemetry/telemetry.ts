import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";

export interface TelemetryOptions {
  serviceName: string;
  /** OTLP/HTTP base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); spans are exported only when it is set. */
  otlpEndpoint?: string | undefined;
  /** More processors, e.g. an in-memory exporter in tests. */
  spanProcessors?: SpanProcessor[];
}

export interface Telemetry {
  /** Flushes pending spans; the last step of the shutdown order. */
  shutdown(): Promise<void>;
}

/**
 * Spans are always recorded, even without an exporter, so that trace ids exist for log lines and for the
 * W3C context carried in gRPC metadata and NATS headers; without an endpoint they are simply dropped.
 */
const DROP_SPANS: SpanProcessor = {
  onStart: () => undefined,
  onEnd: () => undefined,
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

export function startTelemetry(options: TelemetryOptions): Telemetry {
  const processors: SpanProcessor[] = [...(options.spanProcessors ?? [])];
  if (options.otlpEndpoint) {
    const url = `${options.otlpEndpoint.replace(/\/$/, "")}/v1/traces`;
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url })));
  }
  if (processors.length === 0) processors.push(DROP_SPANS);
  // Instrumentation is explicit (Koa middleware, gRPC interceptors, bus publish/consume) rather than
  // monkey-patching: our code is ESM, where require hooks do not see imports.
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    spanProcessors: processors,
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [],
    logRecordProcessors: [],
    metricReaders: [],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
