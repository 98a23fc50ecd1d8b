import { CliError } from "./cli-error.js";

export const DEFAULT_MAINLINE_URL = "http://127.0.0.1:8080";

/**
 * The API base from MAINLINE_URL. People copy either the gateway's address or the /v1 URL `make dev` prints,
 * so both work.
 */
export function apiUrlFrom(env: Readonly<Record<string, string | undefined>>): string {
  const raw = env.MAINLINE_URL?.trim() || DEFAULT_MAINLINE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(
      `MAINLINE_URL is not a URL ("${raw}"): set it to the gateway's address, e.g. ${DEFAULT_MAINLINE_URL}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`MAINLINE_URL must start with http:// or https:// (got "${raw}")`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/v1") ? path : `${path}/v1`;
  return url.toString().replace(/\/+$/, "");
}

export function tokenFrom(env: Readonly<Record<string, string | undefined>>): string {
  const token = env.MAINLINE_TOKEN?.trim();
  if (!token) {
    throw new CliError(
      "MAINLINE_TOKEN is not set: export the API token `make dev` printed (it is also in .data/dev-api-token)",
    );
  }
  return token;
}
