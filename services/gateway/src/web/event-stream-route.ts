import { PassThrough } from "node:stream";
import Router from "@koa/router";
import { UnauthenticatedError } from "@mainline/kit/errors/index";
import type { LifecycleFeed, LifecycleNotice } from "../upstream/lifecycle-feed.js";
import type { WebSessions } from "../auth/web-sessions.js";

const HEARTBEAT_MS = 15_000;

/**
 * GET /ui/events: server-sent events for the signed-in organisation, optionally narrowed to one repository
 * (?repo=host/owner/name) and branch (?branch=). Each event says what changed; the page re-reads it through
 * the API, so the stream never carries data the API would not show the same session.
 */
export function eventStreamRoute(sessions: WebSessions, feed: LifecycleFeed): Router {
  const router = new Router();
  router.get("/ui/events", async (ctx) => {
    const found = await sessions.sessionOf(ctx);
    if (!found) throw new UnauthenticatedError("Unauthorized: not signed in");
    const org = found.principal.org;
    ctx.state.org = org;
    const repo = typeof ctx.query.repo === "string" ? ctx.query.repo : undefined;
    const branch = typeof ctx.query.branch === "string" ? ctx.query.branch : undefined;
    const stream = new PassThrough();
    const send = (notice: LifecycleNotice) => {
      // A resync concerns every page, whatever it shows.
      const everyPage = notice.kind === "resync";
      if (!everyPage && repo !== undefined && notice.repo !== repo) return;
      if (!everyPage && branch !== undefined && notice.branch !== undefined && notice.branch !== branch)
        return;
      stream.write(`event: change\ndata: ${JSON.stringify(notice)}\n\n`);
    };
    const unlisten = feed.listen(org, { notice: send, stopped: () => close() });
    // Proxies close idle connections; a comment line every few seconds keeps the stream open.
    const heartbeat = setInterval(() => stream.write(": keep-alive\n\n"), HEARTBEAT_MS);
    const close = () => {
      clearInterval(heartbeat);
      unwatch();
      unlisten();
      stream.end();
    };
    ctx.req.on("close", close);
    // The stream lasts no longer than its session: signed out (here at once, on another replica within the
    // re-check), its token revoked, or expired, it says so and ends; the page's next read is refused and it
    // asks to sign in again (a reconnect is refused too).
    const unwatch = sessions.watch(found.session, (reason) => {
      stream.write(`event: ended\ndata: ${JSON.stringify({ reason })}\n\n`);
      close();
    });
    ctx.req.on("close", unwatch);
    ctx.req.socket.setTimeout(0);
    ctx.set("cache-control", "no-store");
    ctx.set("x-accel-buffering", "no");
    ctx.type = "text/event-stream";
    ctx.status = 200;
    ctx.body = stream;
    stream.write("retry: 1000\n: connected\n\n");
  });
  return router;
}
