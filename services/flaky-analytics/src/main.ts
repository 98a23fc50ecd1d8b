import { loadConfigOrExit } from "@mainline/kit/config/index";
import { createLogger } from "@mainline/kit/logging/index";
import { runMain, serveGrpc, startServiceRuntime } from "@mainline/kit/service/index";
import { createFlakyService } from "./app/flaky-service.js";
import { configSchema, DEV_PAGE_TOKEN_KEY } from "./config.js";

const config = loadConfigOrExit("flaky-analytics", configSchema);

runMain(createLogger("flaky-analytics", config.LOG_LEVEL), async () => {
  const runtime = await startServiceRuntime({
    name: "flaky-analytics",
    natsUrl: config.NATS_URL,
    natsUser: config.NATS_USER,
    natsPassword: config.NATS_PASSWORD,
    mongodbUri: config.MONGODB_URI,
    logLevel: config.LOG_LEVEL,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  if (config.FLAKY_PAGE_TOKEN_KEY === DEV_PAGE_TOKEN_KEY) {
    runtime.logger.warn("FLAKY_PAGE_TOKEN_KEY is the development default; set a secret in production");
  }
  const service = await createFlakyService({
    nats: runtime.nats,
    store: runtime.store,
    logger: runtime.logger,
    pageTokenKey: config.FLAKY_PAGE_TOKEN_KEY,
    publicBaseUrl: config.MAINLINE_PUBLIC_URL,
  });
  const consumer = await service.startConsuming();
  runtime.shutdown.on("stop-consuming", "test-results consumer", () => consumer.stop());
  runtime.shutdown.on("finish-in-flight", "ingest", async () => {
    service.app.outbox.stop();
    await service.app.idle();
  });
  await serveGrpc(runtime, { port: config.GRPC_PORT, services: [service.grpc] });
  return runtime.shutdown;
});
