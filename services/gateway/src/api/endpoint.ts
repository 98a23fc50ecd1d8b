import type { Context } from "koa";
import type { z } from "zod";
import type { Principal } from "../auth/principal.js";

/** Who may call an endpoint: any valid token (its organisation's data), admin tokens only, or anyone. */
export type Access = "org" | "admin" | "public";

export interface Call {
  principal: Principal;
  ctx: Context;
  /** Aborted when the client hangs up before its answer: a call made for it can be cancelled (callUnary). */
  signal: AbortSignal;
}

/**
 * One endpoint, declared once: its schemas validate requests, document the API (OpenAPI) and let tests check
 * every response. The handler receives parsed, typed input and never sees raw JSON.
 */
export interface Endpoint<Input = unknown, Output = unknown> {
  method: "get" | "post" | "delete";
  /** Path under /v1, e.g. "/submitPullRequest". */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  /** JSON body (POST), query string (GET) or the `{name}` segments of the path. */
  input: z.ZodType<Input>;
  inputIn: "body" | "query" | "path";
  /** JSON response schema, or "text" for plain-text responses. */
  output: z.ZodType<Output> | { text: string };
  /**
   * Checks the raw body before it is parsed (a code-host signature is computed over the exact bytes); throws to
   * refuse the request.
   */
  verifyBody?(rawBody: string, ctx: Context): Promise<void>;
  /** Error statuses this endpoint answers beyond those every endpoint may (see openapi.ts), e.g. 403. */
  errors?: readonly number[];
  /** Success status; 200 unless said otherwise. */
  status?: number;
  handle(input: Input, call: Call): Promise<Output>;
}

export function endpoint<I, O>(definition: Endpoint<I, O>): Endpoint<unknown, unknown> {
  return definition;
}
