import getRawBody from "raw-body";
import type { Context } from "koa";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { HttpError } from "./error-response.js";

/** The spec's limit for merge-queue requests. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

/**
 * Reads a JSON body as text, exactly as sent (a code-host signature is computed over these bytes). A declared
 * length over the limit is refused before reading anything; an undeclared (chunked) one is refused as soon as
 * the limit is crossed, so an oversized body is never buffered whole.
 */
export async function readJsonBodyText(ctx: Context, limit = MAX_BODY_BYTES): Promise<string> {
  const length = ctx.request.length;
  const hasBody = (length !== undefined && length > 0) || ctx.get("transfer-encoding") !== "";
  if (!hasBody) throw new InvalidArgumentError("body", "a JSON object is required");
  if (!ctx.is("application/json", "+json")) {
    throw new HttpError(
      415,
      `Content-Type must be application/json (got ${ctx.get("content-type") || "none"})`,
    );
  }
  let text: string;
  try {
    text = await getRawBody(ctx.req, { limit, length, encoding: "utf8" });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") {
      ctx.set("Connection", "close");
      throw new HttpError(413, `Request body is larger than the limit of ${limit} bytes (20 MiB)`);
    }
    throw new InvalidArgumentError("body", `could not be read (${(error as Error).message})`);
  }
  return text;
}

export function parseJsonBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidArgumentError("body", `is not valid JSON: ${(error as Error).message}`);
  }
}
