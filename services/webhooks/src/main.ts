import { loadConfigOrExit } from "@mainline/kit/config/index";
import { GitHubAppClient, gitHubAppSettings } from "@mainline/kit/github/index";
import { createGrpcClient } from "@mainline/kit/grpc/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { createLogger } from "@mainline/kit/logging/index";
import { runMain, serveGrpc, startServiceRuntime } from "@mainline/kit/service/index";
import { configSchema } from "./config.js";
import { WebhooksApp } from "./webhooks-app.js";

const config = loadConfigOrExit("webhooks", configSchema);

runMain(createLogger("webhooks", config.LOG_LEVEL), async () => {
  const runtime = await startServiceRuntime({
    name: "webhooks",
    natsUrl: config.NATS_URL,
    natsUser: config.NATS_USER,
    natsPassword: config.NATS_PASSWORD,
    mongodbUri: config.MONGODB_URI,
    logLevel: config.LOG_LEVEL,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const gitHubApp = gitHubAppSettings(config);
  const app = await WebhooksApp.start({
    nats: runtime.nats,
    store: runtime.store,
    logger: runtime.logger,
    settings: config,
    ...(gitHubApp && {
      github: {
        client: new GitHubAppClient({ settings: gitHubApp, logger: runtime.logger }),
        coordinator: createGrpcClient(QueueCoordinatorClient, config.QUEUE_COORDINATOR_ADDR),
        publicUrl: config.MAINLINE_PUBLIC_URL,
        leaseMs: config.GITHUB_CALL_LEASE_MS,
        maxAttempts: config.GITHUB_CALL_MAX_ATTEMPTS,
        retryMs: config.GITHUB_CALL_RETRY_MS,
      },
    }),
  });
  // Stopping the consumers waits for attempts in flight, so they are logged and acked before NATS drains.
  runtime.shutdown.on("stop-consuming", "webhook deliveries", () => app.stop());
  await serveGrpc(runtime, { port: config.GRPC_PORT, services: [app.grpc] });
  return runtime.shutdown;
});
