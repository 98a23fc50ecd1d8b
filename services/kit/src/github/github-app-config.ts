import { readFileSync } from "node:fs";
import { z } from "zod";
import { unsetIfEmpty } from "../config/fields.js";

/**
 * The GitHub App of a Mainline deployment, as every service that talks to GitHub reads it from its environment
 * (a Kubernetes Secret in the chart). Spread into a service's schema next to commonConfig, then refine it with
 * `requireWholeGitHubApp` and read it with `gitHubAppSettings`; all unset means the integration is off.
 */
export const gitHubAppConfig = {
  GITHUB_APP_ID: unsetIfEmpty(
    z
      .string()
      .regex(/^[1-9]\d{0,11}$/, "expected the App's numeric id (1 to 12 digits)")
      .optional(),
  ),
  /** PEM as GitHub hands it out; "\n" written as two characters (one-line env values) is read as a newline. */
  GITHUB_APP_PRIVATE_KEY: unsetIfEmpty(
    z
      .string()
      .max(16_384, "expected a PEM private key of at most 16384 characters")
      .transform((v) => v.replace(/\\n/g, "\n"))
      .refine((v) => isPemPrivateKey(v), "expected a PEM private key (-----BEGIN RSA PRIVATE KEY----- ...)")
      .optional(),
  ),
  GITHUB_APP_PRIVATE_KEY_FILE: unsetIfEmpty(
    z
      .string()
      .min(1, "expected a file path")
      .max(4096, "expected a file path of at most 4096 characters")
      .optional(),
  ),
  GITHUB_WEBHOOK_SECRET: unsetIfEmpty(
    z
      .string()
      .min(16, "expected a webhook secret of 16 to 256 characters")
      .max(256, "expected a webhook secret of 16 to 256 characters")
      .optional(),
  ),
  /** github.com by default; Enterprise Server: https://HOST/api/v3. */
  GITHUB_API_URL: unsetIfEmpty(
    z
      .url({
        protocol: /^https?$/,
        message: "expected an http(s) URL such as https://github.example.com/api/v3",
      })
      .max(2048, "expected a URL of at most 2048 characters")
      .transform((v) => v.replace(/\/+$/, ""))
      .default("https://api.github.com"),
  ),
};

/** The parsed variables, as they appear in any service config that spreads gitHubAppConfig. */
export type GitHubAppEnv = z.infer<z.ZodObject<typeof gitHubAppConfig>>;

/** What the App client needs; the webhook secret is only for services that take GitHub's webhooks in. */
export interface GitHubAppSettings {
  readonly appId: number;
  readonly privateKey: string;
  readonly webhookSecret: string | undefined;
  readonly apiUrl: string;
}

/**
 * A half-configured App is a mistake to report at start, not an integration that silently stays off: with an
 * App id, a private key (inline or file, not both) is required, and the other way round.
 */
export function requireWholeGitHubApp(env: GitHubAppEnv, context: z.RefinementCtx): void {
  const key = env.GITHUB_APP_PRIVATE_KEY !== undefined;
  const file = env.GITHUB_APP_PRIVATE_KEY_FILE !== undefined;
  const issue = (path: string, message: string) =>
    context.addIssue({ code: "custom", path: [path], message });
  if (key && file) issue("GITHUB_APP_PRIVATE_KEY_FILE", "set GITHUB_APP_PRIVATE_KEY or this, not both");
  if (env.GITHUB_APP_ID !== undefined && !key && !file)
    issue("GITHUB_APP_PRIVATE_KEY", "required with GITHUB_APP_ID (or GITHUB_APP_PRIVATE_KEY_FILE)");
  if (env.GITHUB_APP_ID === undefined && (key || file || env.GITHUB_WEBHOOK_SECRET !== undefined))
    issue("GITHUB_APP_ID", "required when a GitHub App key or webhook secret is set");
  if (file && env.GITHUB_APP_PRIVATE_KEY_FILE) {
    let text: string | undefined;
    try {
      text = readFileSync(env.GITHUB_APP_PRIVATE_KEY_FILE, "utf8");
    } catch (error) {
      issue("GITHUB_APP_PRIVATE_KEY_FILE", `cannot read the file (${(error as NodeJS.ErrnoException).code})`);
    }
    if (text !== undefined && !isPemPrivateKey(text))
      issue("GITHUB_APP_PRIVATE_KEY_FILE", "the file is not a PEM private key");
  }
}

/** The App's settings from a parsed config, or undefined when the integration is off. */
export function gitHubAppSettings(env: GitHubAppEnv): GitHubAppSettings | undefined {
  if (env.GITHUB_APP_ID === undefined) return undefined;
  const privateKey =
    env.GITHUB_APP_PRIVATE_KEY ??
    (env.GITHUB_APP_PRIVATE_KEY_FILE ? readFileSync(env.GITHUB_APP_PRIVATE_KEY_FILE, "utf8") : undefined);
  if (privateKey === undefined) return undefined;
  return {
    appId: Number(env.GITHUB_APP_ID),
    privateKey,
    webhookSecret: env.GITHUB_WEBHOOK_SECRET,
    apiUrl: env.GITHUB_API_URL,
  };
}

function isPemPrivateKey(text: string): boolean {
  return /-----BEGIN (RSA |EC )?PRIVATE KEY-----[\s\S]+-----END (RSA |EC )?PRIVATE KEY-----/.test(text);
}
