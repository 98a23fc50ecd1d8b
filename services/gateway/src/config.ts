import { fileURLToPath } from "node:url";
import { z } from "zod";
import { address, commonConfig, port, positiveInt, unsetIfEmpty } from "@mainline/kit/config/index";
import { gitHubAppConfig } from "@mainline/kit/github/index";
import { DEFAULT_AUTH_CACHE_TTL_MS } from "./auth/auth-repository.js";

export const configSchema = z.object({
  ...commonConfig,
  GATEWAY_PORT: port(8080),
  GATEWAY_HOST: z.string().min(1).default("0.0.0.0"),
  QUEUE_COORDINATOR_ADDR: address("127.0.0.1:50051"),
  BATCH_RUNNER_ADDR: address("127.0.0.1:50052"),
  FLAKY_ANALYTICS_ADDR: address("127.0.0.1:50053"),
  METRICS_ADDR: address("127.0.0.1:50054"),
  WEBHOOKS_ADDR: address("127.0.0.1:50055"),
  /**
   * Where users reach Mainline (as for flaky-analytics): links to pages the gateway serves, such as a test run's
   * output, start with it. Unset: the origin of the request that asks.
   */
  MAINLINE_PUBLIC_URL: z
    .url({ message: "expected an absolute URL such as https://mainline.example.com" })
    .optional(),
  /** Seeds organisation `dev` with this API token on start (make dev sets it). */
  DEV_API_TOKEN: z.string().min(16, "expected at least 16 characters").optional(),
  /**
   * How long an authenticated API token is trusted without a store lookup; 0 disables. A token revoked through
   * another gateway replica keeps working on this one for at most this long.
   */
  GATEWAY_AUTH_CACHE_TTL_MS: z.coerce
    .number({ message: "expected a whole number of milliseconds (0 disables)" })
    .int("expected a whole number of milliseconds (0 disables)")
    .min(0, "expected a whole number of milliseconds (0 disables)")
    .max(300_000, "expected at most 300000 (5 minutes): revocation must take effect soon")
    .default(DEFAULT_AUTH_CACHE_TTL_MS),
  /**
   * At most this many getSubmittedPullRequest polls share one gRPC call to the queue-coordinator (polls that
   * arrive in the same turn of the event loop are coalesced); 1 gives every poll its own call.
   */
  GATEWAY_STATUS_POLL_BATCH_SIZE: positiveInt(100, "a whole number of polls from 1 to 1000").pipe(
    z.number().max(1000, "expected at most 1000 (the queue-coordinator's limit per call)"),
  ),
  /**
   * Secret of the code host's webhooks: when set, code-host events must carry a valid X-Hub-Signature-256.
   * Empty counts as unset, so a chart can always pass the variable.
   */
  CODE_HOST_WEBHOOK_SECRET: unsetIfEmpty(z.string().min(8, "expected at least 8 characters").optional()),
  /**
   * The GitHub App (the same variables as every service's, without requireWholeGitHubApp: the gateway never acts
   * as the App and gets no private key): POST /v1/github/webhooks takes deliveries signed with
   * GITHUB_WEBHOOK_SECRET (the only credential GitHub sends); GITHUB_API_URL's host names the repositories'
   * host. Unset: the App integration is off and its routes answer 404.
   */
  ...gitHubAppConfig,
  /**
   * Signs the web page's session cookies. Set it (32+ characters) when more than one gateway replica runs or
   * sessions should survive a restart; unset, each process picks a random key and a restart signs everyone out.
   */
  GATEWAY_SESSION_KEY: unsetIfEmpty(z.string().min(32, "expected at least 32 characters").optional()),
  /** How long a web sign-in lasts. */
  GATEWAY_SESSION_TTL_MINUTES: positiveInt(480, "a whole number of minutes from 1 to 10080 (a week)").pipe(
    z.number().max(10_080, "expected at most 10080 (a week)"),
  ),
  /**
   * Trust X-Forwarded-Proto/-For from a TLS-terminating proxy in front, so the session cookie is marked Secure
   * when the browser speaks HTTPS to the proxy.
   */
  GATEWAY_TRUST_PROXY: z
    .enum(["true", "false"], { message: "expected true or false" })
    .default("false")
    .transform((v) => v === "true"),
  /** The built web page (npm run -w @mainline/web build). */
  GATEWAY_WEB_DIR: z.string().min(1).default(defaultWebDir()),
});
export type Config = z.infer<typeof configSchema>;

/** web/dist of this checkout (src/config.ts and dist/src/config.js sit at different depths). */
function defaultWebDir(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const root = here.includes("/dist/")
    ? new URL("../../../../", import.meta.url)
    : new URL("../../../", import.meta.url);
  return fileURLToPath(new URL("web/dist", root));
}
