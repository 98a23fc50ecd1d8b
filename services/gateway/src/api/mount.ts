import Router from "@koa/router";
import type { Context } from "koa";
import { PermissionDeniedError, UnauthenticatedError } from "@mainline/kit/errors/index";
import type { AuthRepository } from "../auth/auth-repository.js";
import type { Principal } from "../auth/principal.js";
import { parseJsonBody, readJsonBodyText } from "../http/json-body.js";
import type { Endpoint } from "./endpoint.js";
import { buildOpenApi } from "./openapi.js";
import { parseInput } from "../http/validation.js";
import type { WebSessions } from "../auth/web-sessions.js";

const PUBLIC: Principal = { org: "", tokenId: "", admin: false };

/** Mounts every endpoint under /v1 with authentication and validation, plus GET /v1/openapi.json. */
export function mountApi(
  endpoints: readonly Endpoint[],
  auth: AuthRepository,
  sessions?: WebSessions,
): Router {
  const router = new Router({ prefix: "/v1" });
  const openapi = buildOpenApi(endpoints);
  router.get("/openapi.json", (ctx) => {
    ctx.body = openapi;
  });
  for (const e of endpoints) {
    // OpenAPI writes path parameters {name}, the router :name.
    router[e.method](e.path.replace(/\{(\w+)\}/g, ":$1"), async (ctx: Context) => {
      const principal = e.access === "public" ? PUBLIC : await authenticate(ctx, auth, e.access, sessions);
      const raw =
        e.inputIn === "body"
          ? await readBody(ctx, e)
          : e.inputIn === "path"
            ? (ctx.params as Record<string, string>)
            : ctx.query;
      const input = parseInput(e.input, raw);
      const hungUp = new AbortController();
      // "close" before the response finished: the client gave up (its timeout) and will never read the answer.
      ctx.res.once("close", () => {
        if (!ctx.res.writableFinished) hungUp.abort();
      });
      const output = await e.handle(input, { principal, ctx, signal: hungUp.signal });
      ctx.status = e.status ?? 200;
      if ("text" in e.output) {
        ctx.type = e.output.text;
        ctx.body = output;
      } else {
        ctx.body = output ?? {};
      }
    });
  }
  return router;
}

async function readBody(ctx: Context, e: Endpoint): Promise<unknown> {
  const text = await readJsonBodyText(ctx);
  await e.verifyBody?.(text, ctx);
  return parseJsonBody(text);
}

async function authenticate(
  ctx: Context,
  auth: AuthRepository,
  access: "org" | "admin",
  sessions: WebSessions | undefined,
): Promise<Principal> {
  // Prometheus cannot send custom headers, so a bearer token is accepted as well (same tokens).
  const token = ctx.get("x-api-token") || /^Bearer (\S+)$/i.exec(ctx.get("authorization"))?.[1] || "";
  // The web page's calls carry its session cookie instead (with the CSRF header when they change state).
  const principal = token ? await auth.authenticate(token) : await sessions?.principalOf(ctx);
  if (!token && !principal) throw new UnauthenticatedError("Unauthorized: the x-api-token header is missing");
  if (!principal) throw new UnauthenticatedError("Unauthorized: the x-api-token is not a valid API token");
  if (access === "admin" && !principal.admin)
    throw new PermissionDeniedError("This operation needs an admin API token");
  ctx.state.org = principal.org;
  return principal;
}
