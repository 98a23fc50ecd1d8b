import { randomUUID } from "node:crypto";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Context, Next } from "koa";
import type { Logger } from "@mainline/kit/logging/index";

// Looked up per call, not at import: a tracer taken before the SDK (re)registers would stay a no-op.
const tracer = () => trace.getTracer("mainline-gateway");

/**
 * Per request: an id (the caller's x-request-id when it sends a sane one), a SERVER span continuing the caller's
 * W3C trace (named in the `traceresponse` header), and one access-log line when the response is done.
 */
export function requestContext(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const given = ctx.get("x-request-id");
    const requestId = /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set("x-request-id", requestId);
    const parent = propagation.extract(context.active(), ctx.headers);
    const span = tracer().startSpan(
      `${ctx.method} ${ctx.path}`,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": ctx.method, "url.path": ctx.path, "request.id": requestId },
      },
      parent,
    );
    // W3C Trace Context level 2's response header: a caller that sent no traceparent can still find its trace.
    const { traceId, spanId, traceFlags } = span.spanContext();
    ctx.set("traceresponse", `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, "0")}`);
    const started = process.hrtime.bigint();
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      span.setAttribute("http.response.status_code", ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        {
          request_id: requestId,
          trace_id: span.spanContext().traceId,
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          duration_ms: Math.round(ms * 10) / 10,
          org: (ctx.state.org as string | undefined) ?? null,
        },
        "request",
      );
    }
  };
}
