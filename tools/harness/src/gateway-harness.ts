import type { Server } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import type { Context, Next } from "koa";
import { connect, type NatsConnection } from "nats";
import { createLogger, type Logger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import {
  allEndpoints,
  AuthRepository,
  configSchema,
  connectUpstreams,
  createApp,
  createHttpServer,
  GitHubDeliveries,
  GitHubRetryLoop,
  LifecycleFeed,
  MergeEstimates,
  webhooksServiceReplies,
  WebSessions,
  type PullRequestReplies,
  type Upstreams,
} from "@mainline/gateway";
import { contractCheckedFetch, NatsServer, type CheckedFetch, type OpenApiContract } from "@mainline/testing";

export interface GatewayHarnessOptions {
  /** CODE_HOST_WEBHOOK_SECRET of the gateway under test. */
  webhookSecret?: string;
  /** How long authenticated tokens are cached (the gateway's GATEWAY_AUTH_CACHE_TTL_MS); 0 disables. */
  authCacheTtlMs?: number;
  /** Most status polls per coalesced gRPC call (GATEWAY_STATUS_POLL_BATCH_SIZE); 1 turns coalescing off. */
  statusPollBatchSize?: number;
  /** Also answer GET /static with a fixed 200 from the same Koa app (the benchmark's baseline). */
  staticRoute?: boolean;
  logger?: Logger;
  /** How long a web session lasts (the gateway's GATEWAY_SESSION_TTL_MINUTES, here in ms); 8 hours unless set. */
  sessionTtlMs?: number;
  /** How often an open event stream re-checks its session (revoked, signed out elsewhere); 5 s unless set. */
  sessionRecheckMs?: number;
  /** GATEWAY_TRUST_PROXY: X-Forwarded-Proto decides whether the session cookie is Secure. */
  trustProxy?: boolean;
  /**
   * Share the services' nats-server (the caller stops it), so the web page's live feed hears their lifecycle
   * events; by default the harness starts its own.
   */
  nats?: NatsServer;
  /** The GitHub App's webhook secret and API URL (GITHUB_WEBHOOK_SECRET, GITHUB_API_URL): the App is on when set. */
  github?: {
    webhookSecret: string;
    apiUrl?: string;
    /** "webhooks-service": replies go to the webhooks service, as in production; unset: they are only logged. */
    replies?: PullRequestReplies | "webhooks-service";
    /** How often kept deliveries are retried (the gateway: every second). */
    retryPollMs?: number;
  };
}

export interface RequestOptions {
  token?: string | undefined;
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

/**
 * The gateway's HTTP app over a real embedded store on a real nats-server, with upstream addresses given by
 * the test (an unreachable one when a test only exercises what the gateway decides by itself). Every request
 * made through it is checked against GET /v1/openapi.json: a response the document does not describe fails
 * the test that received it.
 */
export class GatewayHarness {
  /** fetch, checked against the API document. Use it for anything the helpers below do not cover. */
  readonly fetch: CheckedFetch;

  private constructor(
    readonly url: string,
    readonly auth: AuthRepository,
    private readonly server: Server,
    private readonly upstreams: Upstreams,
    private readonly store: Store,
    /** The test's own connection to the harness's NATS (to publish lifecycle events, for one). */
    readonly nc: NatsConnection,
    private readonly nats: NatsServer | undefined,
    private readonly feed: LifecycleFeed,
    private readonly retries: GitHubRetryLoop | undefined,
  ) {
    this.fetch = contractCheckedFetch(url);
  }

  static async start(
    addresses: Partial<Record<"queue" | "flaky" | "metrics" | "webhooks", string>> = {},
    options: GatewayHarnessOptions = {},
  ): Promise<GatewayHarness> {
    const nats = options.nats ?? (await NatsServer.start());
    const nc = await connect(nats.connectOptions());
    const store = await openStore({ database: "gateway-test", nats: nc });
    const auth = await AuthRepository.open(
      store,
      options.authCacheTtlMs !== undefined ? { cacheTtlMs: options.authCacheTtlMs } : {},
    );
    const unreachable = "127.0.0.1:1";
    const upstreams = connectUpstreams({
      queue: addresses.queue ?? unreachable,
      flaky: addresses.flaky ?? unreachable,
      metrics: addresses.metrics ?? unreachable,
      webhooks: addresses.webhooks ?? unreachable,
      ...(options.statusPollBatchSize !== undefined
        ? { statusPollBatchSize: options.statusPollBatchSize }
        : {}),
    });
    const logger = options.logger ?? createLogger("gateway-test", "silent");
    const sessions = WebSessions.open(auth, store, {
      key: undefined,
      ttlMs: options.sessionTtlMs ?? 8 * 3_600_000,
      ...(options.sessionRecheckMs !== undefined ? { recheckMs: options.sessionRecheckMs } : {}),
    });
    const feed = new LifecycleFeed(nc, logger);
    feed.start();
    const githubReplies =
      options.github?.replies === "webhooks-service"
        ? webhooksServiceReplies(upstreams.webhooks)
        : options.github?.replies;
    const github = options.github
      ? {
          secret: options.github.webhookSecret,
          deliveries: await GitHubDeliveries.open(store),
          ...(githubReplies ? { replies: githubReplies } : {}),
        }
      : undefined;
    const retries = github
      ? new GitHubRetryLoop(
          { queue: upstreams.queue, logger, ...github },
          { pollMs: options.github?.retryPollMs ?? 200, logger },
        )
      : undefined;
    retries?.start();
    const app = createApp({
      logger,
      auth,
      proxy: options.trustProxy ?? false,
      // The page as built in this checkout, found where the gateway finds it by default.
      web: { sessions, feed, assetsDir: configSchema.parse({}).GATEWAY_WEB_DIR },
      endpoints: allEndpoints(
        upstreams,
        auth,
        { logger, webhookSecret: options.webhookSecret },
        {
          estimates: new MergeEstimates(upstreams.queue, feed),
          github: {
            apiUrl: options.github?.apiUrl ?? "https://api.github.com",
            logger,
            ...(github ? { webhookSecret: github.secret, deliveries: github.deliveries } : {}),
            ...(github?.replies ? { replies: github.replies } : {}),
          },
        },
      ),
      readiness: [],
    });
    if (options.staticRoute) {
      // Registered in front of the app's own middleware on purpose: the baseline is Koa itself, nothing of ours.
      app.middleware.unshift(async (ctx: Context, next: Next): Promise<void> => {
        if (ctx.path !== "/static") {
          await next();
          return;
        }
        ctx.body = { ok: true };
      });
    }
    const server = createHttpServer(app);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    return new GatewayHarness(
      `http://127.0.0.1:${port}/v1`,
      auth,
      server,
      upstreams,
      store,
      nc,
      options.nats ? undefined : nats,
      feed,
      retries,
    );
  }

  /** The API document this harness checks responses against. */
  contract(): Promise<OpenApiContract> {
    return this.fetch.contract();
  }

  /** A new organisation with an ordinary token. */
  async organization(slug: string): Promise<string> {
    await this.auth.createOrganization(slug, slug);
    return (await this.auth.createToken(slug, "test", false)).token;
  }

  /** Any request to the API; a JSON body is sent as JSON, a string as it is. */
  request(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : "";
    const hasBody = options.body !== undefined;
    return this.fetch(`${this.url}${path}${query}`, {
      method: method.toUpperCase(),
      headers: {
        ...(hasBody ? { "content-type": "application/json" } : {}),
        ...(options.token ? { "x-api-token": options.token } : {}),
        ...options.headers,
      },
      ...(hasBody
        ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }
        : {}),
    });
  }

  post(path: string, body: unknown, token?: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.request("POST", path, { body, token, headers });
  }

  get(path: string, token?: string, query?: Record<string, string>): Promise<Response> {
    return this.request("GET", path, { token, ...(query ? { query } : {}) });
  }

  /** The gateway's origin, where the web page and /ui live (outside the API document). */
  get origin(): string {
    return new URL(this.url).origin;
  }

  async stop(): Promise<void> {
    await this.retries?.stop();
    this.feed.stop();
    this.server.close();
    this.upstreams.close();
    await this.store.close();
    await this.nc.close();
    await this.nats?.stop();
  }
}
