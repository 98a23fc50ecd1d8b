import { z } from "zod";
import { address, commonConfig, millis, port } from "@mainline/kit/config/index";

export const configSchema = z.object({
  ...commonConfig,
  GRPC_PORT: port(50051),
  /**
   * flaky-analytics, asked what it knows of a failed run's tests (issue 26). Down or slow, the run is decided
   * as if it knew nothing, and the history says so.
   */
  FLAKY_ANALYTICS_ADDR: address("127.0.0.1:50053"),
  /** How long a failed run waits for that answer. */
  TEST_STATUS_DEADLINE_MS: millis(2_000),
  /**
   * How long the timekeeper lease outlives its holder: after a replica dies, alarms and leftover outboxes wait
   * this long for another replica to take over. Shorter means faster takeover and more renewal traffic.
   */
  COORDINATOR_LEASE_TTL_MS: millis(15_000),
  /** How often the timekeeper looks for due alarms and unpublished outboxes. */
  COORDINATOR_SWEEP_INTERVAL_MS: millis(2_000),
});
export type Config = z.infer<typeof configSchema>;
