import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  status as GrpcStatus,
  type handleUnaryCall,
  type Metadata,
  type ServerErrorResponse,
  type ServerUnaryCall,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { MainlineError } from "../errors/index.js";
import { grpcStatusOf } from "./grpc-status.js";
import type { Logger } from "../logging/index.js";
import { safeStatusMessage } from "./status-message.js";
import { extractTraceContext } from "./trace-metadata.js";

export interface CallContext {
  metadata: Metadata;
  /** The gRPC method path, e.g. /mainline.queue.v1.QueueCoordinator/GetQueue. */
  path: string;
  /**
   * Aborted once the caller cancelled the call or its deadline passed: nobody waits for the answer any more, so
   * work queued for it that has not started can be dropped (absent where a handler is called directly).
   */
  signal?: AbortSignal;
}

/** A service implemented with async functions instead of callbacks. */
export type AsyncImplementation<S> = {
  // ts-proto's server interfaces carry grpc-js's string index signature; only the named methods are ours.
  [K in keyof S as string extends K ? never : K]: S[K] extends handleUnaryCall<infer Req, infer Res>
    ? (request: Req, call: CallContext) => Promise<Res>
    : never;
};

// Looked up per call, not at import: a tracer taken before the SDK (re)registers would stay a no-op.
const tracer = () => trace.getTracer("mainline-grpc");

/**
 * Adapts async handlers to grpc-js: each call runs in a SERVER span under the caller's trace context, and a
 * thrown MainlineError becomes its gRPC status with the error's message (the gateway shows that message to the
 * user). Anything else is a bug: logged with its stack, answered INTERNAL without internals.
 */
export function toGrpcImplementation<S>(
  implementation: AsyncImplementation<S>,
  logger: Logger,
): UntypedServiceImplementation {
  const adapted: UntypedServiceImplementation = {};
  const handlers = implementation as Record<
    string,
    (request: unknown, call: CallContext) => Promise<unknown>
  >;
  for (const [name, fn] of Object.entries(handlers)) {
    adapted[name] = (
      call: ServerUnaryCall<unknown, unknown>,
      callback: (error: ServerErrorResponse | null, value?: unknown) => void,
    ) => {
      const parent = extractTraceContext(call.metadata);
      const path = call.getPath();
      const gone = new AbortController();
      if (call.cancelled) gone.abort();
      else call.once("cancelled", () => gone.abort());
      const span = tracer().startSpan(
        path.replace(/^\//, ""),
        { kind: SpanKind.SERVER, attributes: { "rpc.system": "grpc" } },
        parent,
      );
      const fail = (error: unknown) => {
        const mapped = toServiceError(error, path, logger);
        span.setStatus({ code: SpanStatusCode.ERROR, message: mapped.message });
        span.setAttribute("rpc.grpc.status_code", mapped.code ?? GrpcStatus.UNKNOWN);
        span.end();
        if (!answer(callback, path, logger, mapped)) answer(callback, path, logger, internalError());
      };
      // The last-resort guard of every RPC: a handler that throws synchronously, rejects with anything, or
      // returns something grpc-js cannot send still gets one answer, and the process keeps serving the others.
      context
        .with(trace.setSpan(parent, span), () =>
          Promise.resolve().then(() =>
            fn(call.request, { metadata: call.metadata, path, signal: gone.signal }),
          ),
        )
        .then((response) => {
          span.end();
          if (!answer(callback, path, logger, null, response))
            fail(new Error("the response could not be sent"));
        }, fail)
        .catch((error: unknown) => logger.error({ err: error, path }, "gRPC call could not be answered"));
    };
  }
  return adapted;
}

/** Calls grpc-js back, reporting (not throwing) when it refuses; false when the answer was not sent. */
function answer(
  callback: (error: ServerErrorResponse | null, value?: unknown) => void,
  path: string,
  logger: Logger,
  error: ServerErrorResponse | null,
  value?: unknown,
): boolean {
  try {
    callback(error, value);
    return true;
  } catch (thrown) {
    logger.error({ err: thrown, path }, "grpc-js refused the answer of a call");
    return false;
  }
}

function toServiceError(error: unknown, path: string, logger: Logger): ServerErrorResponse {
  if (error instanceof MainlineError) {
    const message = safeStatusMessage(error.message);
    return Object.assign(new Error(message), { code: grpcStatusOf(error.code), details: message });
  }
  logger.error({ err: error, path }, "unhandled error in gRPC handler");
  return internalError();
}

function internalError(): ServerErrorResponse {
  return Object.assign(new Error("internal error"), { code: GrpcStatus.INTERNAL, details: "internal error" });
}
