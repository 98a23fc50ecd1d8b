import { MainlineError, type ErrorCode } from "../errors/index.js";

/**
 * GitHub refused the call for now (rate limit, outage, network): the same call can succeed later, after
 * `retryAfterMs` (GitHub's retry-after when it sent one). An outbox keeps the call and tries again.
 */
export class GitHubRetryableError extends MainlineError {
  readonly code = "UNAVAILABLE";
  readonly retryable = true;
  override readonly retryAfterMs: number;
  constructor(
    message: string,
    readonly status: number | undefined,
    retryAfterMs: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * GitHub refused the call for good (validation, no such repository or pull request, the App lacks a permission):
 * repeating it changes nothing, so an outbox records it and moves on.
 */
export class GitHubTerminalError extends MainlineError {
  readonly retryable = false;
  constructor(
    message: string,
    readonly status: number,
    readonly code: ErrorCode,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The shape of @octokit/request-error's RequestError that the decision needs (no token is read from it). */
interface RequestErrorLike {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
}

function isRequestError(error: unknown): error is RequestErrorLike {
  return error instanceof Error && typeof (error as { status?: unknown }).status === "number";
}

/**
 * The retry decision for an error Octokit threw after its own throttling and retries gave up. The message names
 * the call and GitHub's answer only: Octokit's error also holds the request, whose headers carry the token.
 */
export function classifyGitHubError(what: string, error: unknown, fallbackRetryMs = 5_000): MainlineError {
  if (error instanceof MainlineError) return error;
  if (!isRequestError(error))
    return new GitHubRetryableError(
      `${what}: ${(error as Error | undefined)?.message ?? String(error)}`,
      undefined,
      fallbackRetryMs,
    );
  const { status } = error;
  const headers = error.response?.headers ?? {};
  const githubMessage = messageOf(error.response?.data) ?? error.message.split("\n")[0] ?? "";
  const message = `${what}: GitHub answered ${status}${githubMessage ? ` (${githubMessage.slice(0, 300)})` : ""}`;
  const retryAfter = Number(headers["retry-after"]);
  const rateLimited =
    status === 429 ||
    (status === 403 &&
      (/rate limit/i.test(githubMessage) || String(headers["x-ratelimit-remaining"]) === "0"));
  if (rateLimited) {
    const resetMs = Number(headers["x-ratelimit-reset"]) * 1000 - Date.now();
    const waitMs =
      Number.isFinite(retryAfter) && retryAfter >= 0
        ? retryAfter * 1000
        : resetMs > 0
          ? resetMs + 1000
          : 60_000;
    return new GitHubRetryableError(message, status, waitMs);
  }
  // 500 without a response: fetch itself failed (connection refused, DNS), which Octokit reports as status 500.
  if (status >= 500 || status === 408 || !error.response)
    return new GitHubRetryableError(
      message,
      status,
      Number.isFinite(retryAfter) ? retryAfter * 1000 : fallbackRetryMs,
    );
  const code: ErrorCode =
    status === 404 || status === 410
      ? "NOT_FOUND"
      : status === 401
        ? "UNAUTHENTICATED"
        : status === 403
          ? "PERMISSION_DENIED"
          : status === 422 || status === 400
            ? "INVALID_ARGUMENT"
            : "FAILED_PRECONDITION";
  return new GitHubTerminalError(message, status, code);
}

function messageOf(data: unknown): string | undefined {
  if (
    data !== null &&
    typeof data === "object" &&
    typeof (data as { message?: unknown }).message === "string"
  )
    return (data as { message: string }).message;
  return undefined;
}
