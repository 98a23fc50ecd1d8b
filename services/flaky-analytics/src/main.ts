import { loadConfigOrExit } from "@mainline/kit/config/index";
import { createLogger } from "@mainline/kit/logging/index";
import { runMain, serveGrpc, startServiceRuntime } from "@mainline/kit/service/index";
import { configSchema } from "./config.js";

const config = loadConfigOrExit("flaky-analytics", configSchema);

runMain(createLogger("flaky-analytics", config.LOG_LEVEL), async () => {
  const runtime = await startServiceRuntime({
    name: "flaky-analytics",
    natsUrl: config.NATS_URL,
    mongodbUri: config.MONGODB_URI,
    logLevel: config.LOG_LEVEL,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  await serveGrpc(runtime, { port: config.GRPC_PORT, services: [] });
  return runtime.shutdown;
});
