import type { Context, Next } from "koa";
import { HTTP_STATUS, MainlineError } from "@mainline/kit/errors/index";
import type { Logger } from "@mainline/kit/logging/index";

/** An HTTP-level refusal that has no gRPC counterpart (413, 415). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/**
 * Errors leave the gateway as plain-text bodies (compat-notes): a short sentence naming the field or object at
 * fault. The status comes from the one table in kit/errors (a failed gRPC call arrives as a RemoteCallError, a
 * MainlineError carrying the remote code); nothing unexpected is ever shown to the caller.
 */
export function errorResponses(logger: Logger) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } catch (error) {
      const { status, message } = describe(error);
      if (status >= 500)
        logger.error(
          { err: error, path: ctx.path, request_id: ctx.state.requestId as string },
          "request failed",
        );
      ctx.status = status;
      // The spec declares its 401 body as `application/plain-text`; every other error is text/plain.
      ctx.type = status === 401 ? "application/plain-text; charset=utf-8" : "text/plain; charset=utf-8";
      ctx.body = message;
    }
  };
}

function describe(error: unknown): { status: number; message: string } {
  if (error instanceof HttpError) return { status: error.status, message: error.message };
  if (error instanceof MainlineError) return { status: HTTP_STATUS[error.code], message: error.message };
  return { status: 500, message: "Internal error" };
}
