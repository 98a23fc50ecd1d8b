import { z } from "zod";
import { address, commonConfig, port } from "@mainline/kit/config/index";

export const configSchema = z.object({
  ...commonConfig,
  GATEWAY_PORT: port(8080),
  GATEWAY_HOST: z.string().min(1).default("0.0.0.0"),
  QUEUE_COORDINATOR_ADDR: address("127.0.0.1:50051"),
  BATCH_RUNNER_ADDR: address("127.0.0.1:50052"),
  FLAKY_ANALYTICS_ADDR: address("127.0.0.1:50053"),
  METRICS_ADDR: address("127.0.0.1:50054"),
  WEBHOOKS_ADDR: address("127.0.0.1:50055"),
  /** Seeds organisation `dev` with this API token on start (make dev sets it). */
  DEV_API_TOKEN: z.string().min(16, "expected at least 16 characters").optional(),
});
export type Config = z.infer<typeof configSchema>;
