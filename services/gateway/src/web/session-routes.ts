import Router, { type RouterContext } from "@koa/router";
import { z } from "zod";
import { PermissionDeniedError, UnauthenticatedError } from "@mainline/kit/errors/index";
import { parseInput } from "../http/validation.js";
import { parseJsonBody, readJsonBodyText } from "../http/json-body.js";
import { csrfMatches } from "../auth/session-cookie.js";
import { CSRF_HEADER, type WebSessions } from "../auth/web-sessions.js";

const signInRequest = z.strictObject({
  token: z.string().trim().min(1, "must not be empty: paste an API token (mainline admin tokens create)"),
});

/**
 * /ui/session: sign in with an API token (POST), who am I (GET), sign out (DELETE). Outside /v1: these belong
 * to the browser, not to the API a CI pipeline calls. The answer carries the CSRF token the page keeps in
 * memory and echoes on every state-changing call.
 */
export function sessionRoutes(sessions: WebSessions): Router {
  const router = new Router({ prefix: "/ui/session" });
  const describe = (
    ctx: RouterContext,
    org: string,
    admin: boolean,
    csrfToken: string,
    expiresAt: number,
  ) => {
    ctx.set("cache-control", "no-store");
    ctx.body = { org, admin, csrfToken, expiresAt: new Date(expiresAt).toISOString() };
  };
  router.post("/", async (ctx) => {
    const { token } = parseInput(signInRequest, parseJsonBody(await readJsonBodyText(ctx, 64 * 1024)));
    const signedIn = await sessions.signIn(token);
    if (!signedIn) throw new UnauthenticatedError("Unauthorized: token: is not a valid API token");
    ctx.state.org = signedIn.principal.org;
    sessions.setCookie(ctx, signedIn.cookie, signedIn.session.expiresAt);
    describe(
      ctx,
      signedIn.principal.org,
      signedIn.principal.admin,
      signedIn.session.csrfToken,
      signedIn.session.expiresAt,
    );
  });
  router.get("/", async (ctx) => {
    const found = await sessions.sessionOf(ctx);
    if (!found) throw new UnauthenticatedError("Unauthorized: not signed in");
    ctx.state.org = found.principal.org;
    describe(
      ctx,
      found.principal.org,
      found.principal.admin,
      found.session.csrfToken,
      found.session.expiresAt,
    );
  });
  router.delete("/", async (ctx) => {
    const found = await sessions.sessionOf(ctx).catch(() => undefined);
    if (found) {
      // Without this check another site could sign the user out; harmless, but the rule is one rule.
      if (!csrfMatches(found.session, ctx.get(CSRF_HEADER)))
        throw new PermissionDeniedError(`Forbidden: sign-out must carry the session's ${CSRF_HEADER} header`);
      await sessions.signOut(found.session);
    }
    sessions.clearCookie(ctx);
    ctx.status = 204;
  });
  return router;
}
