import { once } from "node:events";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";
import { isEntryPoint, startService } from "@mainline/kit/service/index";
import { allEndpoints } from "./api/all-endpoints.js";
import { AuthRepository } from "./auth/auth-repository.js";
import { configSchema } from "./config.js";
import { createApp, createHttpServer } from "./app.js";
import { connectUpstreams } from "./upstream/upstreams.js";
import { LifecycleFeed } from "./upstream/lifecycle-feed.js";
import { MergeEstimates } from "./upstream/merge-estimates.js";
import { WebSessions } from "./auth/web-sessions.js";
import { GitHubDeliveries } from "./github/github-deliveries.js";
import { webhooksServiceReplies } from "./github/webhooks-service-replies.js";
import { GitHubRetryLoop } from "./github/github-retry-loop.js";

// Started by node (make dev, the image); the tests build the same app from the parts exported below, through
// @mainline/harness/gateway-harness.
if (isEntryPoint(import.meta.url)) {
  startService("gateway", configSchema, async (runtime, config) => {
    const auth = await AuthRepository.open(runtime.store, { cacheTtlMs: config.GATEWAY_AUTH_CACHE_TTL_MS });
    runtime.logger.info(
      config.CODE_HOST_WEBHOOK_SECRET
        ? "code-host events must carry a valid X-Hub-Signature-256"
        : "CODE_HOST_WEBHOOK_SECRET is unset: code-host events are accepted unsigned (API token only)",
    );
    if (config.DEV_API_TOKEN) await auth.seedToken("dev", config.DEV_API_TOKEN, true);
    const feed = new LifecycleFeed(runtime.nats, runtime.logger);
    feed.start();
    const upstreams = connectUpstreams({
      queue: config.QUEUE_COORDINATOR_ADDR,
      flaky: config.FLAKY_ANALYTICS_ADDR,
      metrics: config.METRICS_ADDR,
      webhooks: config.WEBHOOKS_ADDR,
      statusPollBatchSize: config.GATEWAY_STATUS_POLL_BATCH_SIZE,
    });
    const readinessTargets = {
      "queue-coordinator": config.QUEUE_COORDINATOR_ADDR,
      "batch-runner": config.BATCH_RUNNER_ADDR,
      "flaky-analytics": config.FLAKY_ANALYTICS_ADDR,
      metrics: config.METRICS_ADDR,
      webhooks: config.WEBHOOKS_ADDR,
    };
    if (!config.GATEWAY_SESSION_KEY)
      runtime.logger.info(
        "GATEWAY_SESSION_KEY is unset: web sessions are signed with a random key of this process: they end on restart, and another gateway replica refuses them (the Helm chart and docker-compose set one)",
      );
    const sessions = WebSessions.open(auth, runtime.store, {
      key: config.GATEWAY_SESSION_KEY,
      ttlMs: config.GATEWAY_SESSION_TTL_MINUTES * 60_000,
    });
    const github = config.GITHUB_WEBHOOK_SECRET
      ? {
          secret: config.GITHUB_WEBHOOK_SECRET,
          deliveries: await GitHubDeliveries.open(runtime.store),
          replies: webhooksServiceReplies(upstreams.webhooks),
        }
      : undefined;
    const app = createApp({
      logger: runtime.logger,
      proxy: config.GATEWAY_TRUST_PROXY,
      web: { sessions, feed, assetsDir: config.GATEWAY_WEB_DIR },
      auth,
      endpoints: allEndpoints(
        upstreams,
        auth,
        { logger: runtime.logger, webhookSecret: config.CODE_HOST_WEBHOOK_SECRET },
        {
          ...(config.MAINLINE_PUBLIC_URL !== undefined && { publicUrl: config.MAINLINE_PUBLIC_URL }),
          estimates: new MergeEstimates(upstreams.queue, feed),
          github: {
            apiUrl: config.GITHUB_API_URL,
            logger: runtime.logger,
            ...(github
              ? { webhookSecret: github.secret, deliveries: github.deliveries, replies: github.replies }
              : {}),
          },
        },
      ),
      readiness: Object.entries(readinessTargets).map(([name, addr]) => ({
        name,
        check: () => checkGrpcHealth(addr),
      })),
    });
    const server = createHttpServer(app);
    server.listen(config.GATEWAY_PORT, config.GATEWAY_HOST);
    await once(server, "listening");
    runtime.logger.info({ port: config.GATEWAY_PORT }, "serving HTTP");
    runtime.shutdown.on(
      "close-grpc",
      "http",
      () => new Promise<void>((resolve) => server.close(() => resolve())),
    );
    runtime.shutdown.on("close-grpc", "upstream clients", () => upstreams.close());
    runtime.shutdown.on("stop-consuming", "web page live feed", () => feed.stop());
    if (github) {
      // Deliveries kept when a service was unavailable, or when a gateway died while handling them.
      const retries = new GitHubRetryLoop(
        {
          queue: upstreams.queue,
          deliveries: github.deliveries,
          replies: github.replies,
          logger: runtime.logger,
        },
        { pollMs: 1000, logger: runtime.logger },
      );
      retries.start();
      runtime.shutdown.on("stop-consuming", "github webhook retries", () => retries.stop());
    }
  });
}

// The parts the block above assembles: @mainline/harness builds the same app inside a test process.
export {
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
};
export type { Upstreams } from "./upstream/upstreams.js";
export type { PullRequestReplies } from "./github/github-webhook-handler.js";
