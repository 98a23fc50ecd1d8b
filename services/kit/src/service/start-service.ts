import type { z } from "zod";
import { loadConfigOrExit, type commonConfig } from "../config/index.js";
import { createLogger } from "../logging/index.js";
import { runMain } from "./run-main.js";
import { startServiceRuntime, type ServiceRuntime } from "./service-runtime.js";

/** The settings every service's config schema holds (kit's commonConfig). */
export type CommonConfig = z.infer<z.ZodObject<typeof commonConfig>>;

/**
 * Starts a service process the same way for every service (DESIGN rule 6): parse its config once (exit naming the
 * variable when one is wrong), start telemetry, connect NATS and the store, then let `wire` build the service on
 * that runtime and register its steps in `runtime.shutdown`; SIGTERM runs them in order.
 */
export function startService<S extends z.ZodType<CommonConfig>>(
  name: string,
  schema: S,
  wire: (runtime: ServiceRuntime, config: z.infer<S>) => Promise<void>,
): void {
  const config = loadConfigOrExit(name, schema);
  runMain(createLogger(name, config.LOG_LEVEL), async () => {
    const runtime = await startServiceRuntime({
      name,
      natsUrl: config.NATS_URL,
      natsUser: config.NATS_USER,
      natsPassword: config.NATS_PASSWORD,
      natsReplicas: config.NATS_REPLICAS,
      mongodbUri: config.MONGODB_URI,
      logLevel: config.LOG_LEVEL,
      otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
    });
    await wire(runtime, config);
    return runtime.shutdown;
  });
}
