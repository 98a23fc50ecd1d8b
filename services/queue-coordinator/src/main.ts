import { loadConfigOrExit } from "@mainline/kit/config/index";
import { createLogger } from "@mainline/kit/logging/index";
import { runMain, serveGrpc, startServiceRuntime } from "@mainline/kit/service/index";
import { startQueueCoordinator } from "./app/coordinator.js";
import { configSchema } from "./config.js";

const config = loadConfigOrExit("queue-coordinator", configSchema);

runMain(createLogger("queue-coordinator", config.LOG_LEVEL), async () => {
  const runtime = await startServiceRuntime({
    name: "queue-coordinator",
    natsUrl: config.NATS_URL,
    natsUser: config.NATS_USER,
    natsPassword: config.NATS_PASSWORD,
    mongodbUri: config.MONGODB_URI,
    logLevel: config.LOG_LEVEL,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const { grpc } = await startQueueCoordinator(runtime, {
    leaseTtlMs: config.COORDINATOR_LEASE_TTL_MS,
    sweepEveryMs: config.COORDINATOR_SWEEP_INTERVAL_MS,
  });
  await serveGrpc(runtime, { port: config.GRPC_PORT, services: [grpc] });
  return runtime.shutdown;
});
