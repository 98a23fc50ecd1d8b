import { SpanStatusCode, trace, type Attributes, type Span } from "@opentelemetry/api";

/**
 * Runs one step of work in an INTERNAL span that is active inside it, so that the spans and messages the step
 * causes are its children; a failure marks the span and is rethrown unchanged.
 */
export function inSpan<T>(
  tracerName: string,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  // Looked up per call, not at import: a tracer taken before the SDK registers would stay a no-op.
  return trace.getTracer(tracerName).startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed with the error that ended its work. */
export function failSpan(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}
