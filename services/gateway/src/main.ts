import { createServer } from "node:http";
import { once } from "node:events";
import { loadConfigOrExit } from "@mainline/kit/config/index";
import { createLogger } from "@mainline/kit/logging/index";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";
import { runMain, startServiceRuntime } from "@mainline/kit/service/index";
import { configSchema } from "./config.js";
import { createApp } from "./http/app.js";

const config = loadConfigOrExit("gateway", configSchema);

runMain(createLogger("gateway", config.LOG_LEVEL), async () => {
  const runtime = await startServiceRuntime({
    name: "gateway",
    natsUrl: config.NATS_URL,
    mongodbUri: config.MONGODB_URI,
    logLevel: config.LOG_LEVEL,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const upstreams = {
    "queue-coordinator": config.QUEUE_COORDINATOR_ADDR,
    "batch-runner": config.BATCH_RUNNER_ADDR,
    "flaky-analytics": config.FLAKY_ANALYTICS_ADDR,
    metrics: config.METRICS_ADDR,
    webhooks: config.WEBHOOKS_ADDR,
  };
  const app = createApp({
    readiness: Object.entries(upstreams).map(([name, addr]) => ({ name, check: () => checkGrpcHealth(addr) })),
  });
  const server = createServer(app.callback());
  server.listen(config.GATEWAY_PORT, config.GATEWAY_HOST);
  await once(server, "listening");
  runtime.logger.info({ port: config.GATEWAY_PORT }, "serving HTTP");
  runtime.shutdown.on("close-grpc", "http", () => new Promise<void>((resolve) => server.close(() => resolve())));
  return runtime.shutdown;
});
