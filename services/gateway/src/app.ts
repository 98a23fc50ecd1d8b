import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import Koa from "koa";
import type { Logger } from "@mainline/kit/logging/index";
import type { AuthRepository } from "./auth/auth-repository.js";
import type { Endpoint } from "./api/endpoint.js";
import { mountApi } from "./api/mount.js";
import { errorResponses, HttpError } from "./http/error-response.js";
import { healthRoutes, type ReadinessCheck } from "./http/health-routes.js";
import { requestContext } from "./http/request-context.js";
import { eventStreamRoute } from "./web/event-stream-route.js";
import type { LifecycleFeed } from "./upstream/lifecycle-feed.js";
import { sessionRoutes } from "./web/session-routes.js";
import { staticFiles } from "./web/static-files.js";
import type { WebSessions } from "./auth/web-sessions.js";

/** The web page: its sessions, the live feed behind its server-sent events, and where its build lives. */
export interface WebOptions {
  sessions: WebSessions;
  feed?: LifecycleFeed;
  /** web/dist; the page is not served when absent. */
  assetsDir?: string;
}

export interface AppOptions {
  logger: Logger;
  auth: AuthRepository;
  endpoints: readonly Endpoint[];
  readiness: ReadinessCheck[];
  web?: WebOptions;
  /** Trust X-Forwarded-Proto and friends (GATEWAY_TRUST_PROXY): behind a TLS-terminating proxy. */
  proxy?: boolean;
}

/** Koa's callback for node:http, whose listener type expects no promise back. */
function requestHandler(app: Koa): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = app.callback();
  return (req, res) => void handle(req, res);
}

/**
 * The HTTP server of an app. Slow or stalled clients must not hold sockets forever (request and header timeouts).
 * An idle keep-alive socket is kept longer than proxies keep theirs (common load balancers: 60 s), and clients that
 * read the Keep-Alive hint (Node's fetch) close it a second before, so the client closes first: a server that
 * closes first races a request the client is just sending on that socket, which the client sees as a reset
 * ("fetch failed", or a proxy's 502). At Node's default of 5 s a client polling every few seconds meets that race.
 */
export function createHttpServer(app: Koa): Server {
  const server = createServer(requestHandler(app));
  server.requestTimeout = 60_000;
  server.headersTimeout = 15_000;
  server.keepAliveTimeout = 65_000;
  return server;
}

export function createApp(options: AppOptions): Koa {
  const app = new Koa();
  // Errors are answered by errorResponses; Koa's own handler would only log them twice.
  app.silent = true;
  app.proxy = options.proxy ?? false;
  const health = healthRoutes(options.readiness);
  const web = options.web;
  const api = mountApi(options.endpoints, options.auth, web?.sessions);
  app.use(requestContext(options.logger)).use(errorResponses(options.logger)).use(health.routes());
  if (web) {
    app.use(sessionRoutes(web.sessions).routes());
    if (web.feed) app.use(eventStreamRoute(web.sessions, web.feed).routes());
    if (web.assetsDir) app.use(staticFiles(web.assetsDir));
  }
  app
    .use(api.routes())
    .use(
      api.allowedMethods({
        throw: true,
        methodNotAllowed: () => new HttpError(405, "Method not allowed for this path"),
        notImplemented: () => new HttpError(501, "Method not implemented"),
      }),
    )
    .use((ctx) => {
      // A path that exists under another method is left to allowedMethods above, which answers 405.
      if (ctx.matched?.length) return;
      throw new HttpError(404, `No endpoint ${ctx.method} ${ctx.path}; see GET /v1/openapi.json`);
    });
  return app;
}
