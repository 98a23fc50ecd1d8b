import { context, propagation, trace } from "@opentelemetry/api";

/**
 * Unregisters OpenTelemetry's global tracer provider, propagator and context manager. A mocha worker runs many files
 * in one process and the API refuses a second registration (the spans would go to the first provider), so a file
 * that registers its own clears what an earlier file left first (startServiceRuntime's NodeSDK never unregisters),
 * and its own when it is done.
 */
export function resetTelemetryGlobals(): void {
  trace.disable();
  context.disable();
  propagation.disable();
}
