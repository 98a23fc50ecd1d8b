import { loadConfigOrExit } from "@mainline/kit/config/index";
import { createGrpcClient } from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { runMain, serveGrpc, startServiceRuntime } from "@mainline/kit/service/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { configSchema } from "./config.js";
import { MetricsApp } from "./metrics-app.js";

const config = loadConfigOrExit("metrics", configSchema);

runMain(createLogger("metrics", config.LOG_LEVEL), async () => {
  const runtime = await startServiceRuntime({
    name: "metrics",
    natsUrl: config.NATS_URL,
    natsUser: config.NATS_USER,
    natsPassword: config.NATS_PASSWORD,
    mongodbUri: config.MONGODB_URI,
    logLevel: config.LOG_LEVEL,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const coordinator = createGrpcClient(QueueCoordinatorClient, config.QUEUE_COORDINATOR_ADDR);
  const app = await MetricsApp.start({
    nats: runtime.nats,
    store: runtime.store,
    logger: runtime.logger,
    coordinator,
    settings: config,
  });
  // The event in hand is applied and acked before NATS drains; the coordinator is asked nothing after.
  runtime.shutdown.on("stop-consuming", "lifecycle events", async () => {
    await app.stop();
    coordinator.close();
  });
  await serveGrpc(runtime, { port: config.GRPC_PORT, services: [app.grpc] });
  return runtime.shutdown;
});
