import { z } from "zod";
import { commonConfig, millis, port } from "@mainline/kit/config/index";
import { DEFAULT_RETRY_DELAYS_MS } from "./domain/retry-schedule.js";

const flag = z
  .enum(["true", "false", "1", "0"], { message: "expected true or false" })
  .default("false")
  .transform((v) => v === "true" || v === "1");

const millisList = (fallback: readonly number[]) =>
  z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, "expected comma-separated milliseconds, e.g. 5000,300000,1800000")
    .default(fallback.join(","))
    .transform((v) => v.split(",").map((part) => Number(part.trim())))
    .refine((list) => list.every((ms) => ms > 0), "expected every delay > 0");

export const configSchema = z.object({
  ...commonConfig,
  GRPC_PORT: port(50055),
  /** Lets webhooks reach loopback addresses (make dev sets it). */
  WEBHOOKS_ALLOW_LOOPBACK: flag,
  /** More addresses webhooks may reach, e.g. "10.20.0.0/16,fd00::/8". */
  WEBHOOKS_ALLOWED_CIDRS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    ),
  /** Waits between attempts; when used up the subscription is disabled. Default spans over 27 hours. */
  WEBHOOKS_RETRY_SCHEDULE_MS: millisList(DEFAULT_RETRY_DELAYS_MS),
  WEBHOOKS_RETRY_JITTER: z.coerce
    .number({ message: "expected a fraction from 0 to 1" })
    .min(0, "expected a fraction from 0 to 1")
    .max(1, "expected a fraction from 0 to 1")
    .default(0.2),
  /** Deadline of one HTTP attempt. */
  WEBHOOKS_DELIVERY_TIMEOUT_MS: millis(15_000),
  /** How soon a job held by a dead process is handed out again. */
  WEBHOOKS_ACK_WAIT_MS: millis(30_000),
  /** How often the delivery consumers are matched against the stored subscriptions. */
  WEBHOOKS_RECONCILE_INTERVAL_MS: millis(15_000),
});
export type Config = z.infer<typeof configSchema>;
