import { z } from "zod";
import { address, commonConfig, millis, port, positiveInt } from "@mainline/kit/config/index";
import { gitHubAppConfig, requireWholeGitHubApp } from "@mainline/kit/github/index";
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

export const configSchema = z
  .object({
    ...commonConfig,
    ...gitHubAppConfig,
    /** Talking back to GitHub asks the coordinator for PR heads, queue places and installations. */
    QUEUE_COORDINATOR_ADDR: address("127.0.0.1:50051"),
    /** Where users reach Mainline: check runs and comments on GitHub link to the PR's page there. */
    MAINLINE_PUBLIC_URL: z
      .url({ message: "expected an absolute URL such as https://mainline.example.com" })
      .default("http://127.0.0.1:8080"),
    /** How long a GitHub call in hand is this replica's; after a crash another takes it once this passes. */
    GITHUB_CALL_LEASE_MS: millis(60_000),
    /** Attempts at one GitHub call before it is given up (a retry-after from GitHub is always honoured). */
    GITHUB_CALL_MAX_ATTEMPTS: positiveInt(30, "a whole number of attempts >= 1"),
    /** First wait after a failed GitHub call without retry-after; doubles per attempt, at most 10 minutes. */
    GITHUB_CALL_RETRY_MS: millis(5_000),
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
  })
  .superRefine(requireWholeGitHubApp);
export type Config = z.infer<typeof configSchema>;
