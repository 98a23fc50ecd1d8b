import { z } from "zod";
import { commonConfig, millis, port } from "@mainline/kit/config/index";

export const configSchema = z.object({
  ...commonConfig,
  GRPC_PORT: port(50051),
  /**
   * How long the timekeeper lease outlives its holder: after a replica dies, alarms and leftover outboxes wait
   * this long for another replica to take over. Shorter means faster takeover and more renewal traffic.
   */
  COORDINATOR_LEASE_TTL_MS: millis(15_000),
  /** How often the timekeeper looks for due alarms and unpublished outboxes. */
  COORDINATOR_SWEEP_INTERVAL_MS: millis(2_000),
});
export type Config = z.infer<typeof configSchema>;
