import { z } from "zod";
import { address, commonConfig, millis, port } from "@mainline/kit/config/index";

export const configSchema = z.object({
  ...commonConfig,
  GRPC_PORT: port(50054),
  /** The queue-coordinator, whose state the gauges are re-derived from (ListQueues). */
  QUEUE_COORDINATOR_ADDR: address("127.0.0.1:50051"),
  /** How often the gauges are re-derived from the coordinator and expired observations dropped. */
  METRICS_RECONCILE_INTERVAL_MS: millis(60_000),
  /** How soon a lifecycle event held by a dead process is handed out again. */
  METRICS_ACK_WAIT_MS: millis(30_000),
});
export type Config = z.infer<typeof configSchema>;
