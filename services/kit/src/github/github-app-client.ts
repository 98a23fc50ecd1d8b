import { createAppAuth } from "@octokit/auth-app";
import { Octokit } from "@octokit/core";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import Bottleneck from "bottleneck";
import type { Logger } from "../logging/index.js";
import type { GitHubAppSettings } from "./github-app-config.js";
import { classifyGitHubError } from "./github-errors.js";
import { InstallationTokenCache } from "./installation-token-cache.js";

const MainlineOctokit = Octokit.plugin(throttling, retry);
/** An Octokit with App auth, throttling and retries: `request("POST /repos/{owner}/{repo}/check-runs", ...)`. */
export type GitHubOctokit = InstanceType<typeof MainlineOctokit>;

export interface GitHubAppClientOptions {
  readonly settings: GitHubAppSettings;
  readonly logger: Logger;
  /** A rate limit that clears within this long is waited out in process; a longer one goes back to the caller. */
  readonly maxInlineWaitMs?: number;
  /** How often one call is retried in process on a rate limit before it is handed back (retryable). */
  readonly inlineRetries?: number;
  /**
   * Spacing of content-creating calls per installation (GitHub asks for at least a second), and of those that
   * notify people, such as comments (Octokit's default: three seconds).
   */
  readonly writeSpacingMs?: number;
  readonly notificationSpacingMs?: number;
  /** plugin-retry's backoff unit for 5xx answers (waits 1, 4, 9 units). */
  readonly retryUnitMs?: number;
  /** Drop a cached installation token this long before it expires. */
  readonly refreshTokenBeforeMs?: number;
  /** Deadline of one HTTP request to GitHub. */
  readonly requestTimeoutMs?: number;
}

/**
 * The one GitHub App client of a service: installation tokens minted with the App's JWT, cached and refreshed
 * before they expire; GitHub's rate limits respected (Octokit's throttling: waits on 403/429 with retry-after,
 * spaced writes) and 5xx retried a few times (plugin-retry). What still fails comes out of `call` as a typed
 * GitHubRetryableError (with retry-after, for an outbox) or GitHubTerminalError. Tokens never reach a log line.
 */
export class GitHubAppClient {
  private readonly tokens: InstallationTokenCache;
  private readonly installations = new Map<number, GitHubOctokit>();
  private readonly writeGroup: Bottleneck.Group;
  private readonly notificationGroup: Bottleneck.Group;
  private appOctokit: GitHubOctokit | undefined;

  constructor(private readonly options: GitHubAppClientOptions) {
    this.tokens = new InstallationTokenCache(options.refreshTokenBeforeMs);
    this.writeGroup = new Bottleneck.Group({ maxConcurrent: 1, minTime: options.writeSpacingMs ?? 1000 });
    this.notificationGroup = new Bottleneck.Group({
      maxConcurrent: 1,
      minTime: options.notificationSpacingMs ?? 3000,
    });
  }

  get apiUrl(): string {
    return this.options.settings.apiUrl;
  }

  /** Acting as the App itself (App JWT): /app, /app/installations/..., GET /repos/{owner}/{repo}/installation. */
  app(): GitHubOctokit {
    this.appOctokit ??= this.octokit(undefined);
    return this.appOctokit;
  }

  /** Acting inside one installation (its token, refreshed as needed). */
  installation(installationId: number): GitHubOctokit {
    let octokit = this.installations.get(installationId);
    if (!octokit) {
      octokit = this.octokit(installationId);
      this.installations.set(installationId, octokit);
    }
    return octokit;
  }

  /**
   * A fresh-enough installation token, e.g. as git credentials for a push. The caller keeps it out of logs and
   * out of any test command's environment.
   */
  async installationToken(installationId: number): Promise<{ token: string; expiresAt: Date }> {
    return this.call(`installation ${installationId} token`, async () => {
      const auth = (await this.installation(installationId).auth({
        type: "installation",
        installationId,
      })) as {
        token: string;
        expiresAt: string;
      };
      return { token: auth.token, expiresAt: new Date(auth.expiresAt) };
    });
  }

  /**
   * Runs one GitHub call and turns what Octokit could not absorb into the retry decision:
   * `await client.call("create check run", () => client.installation(id).request(...))`.
   */
  async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw classifyGitHubError(what, error);
    }
  }

  private octokit(installationId: number | undefined): GitHubOctokit {
    const { settings, logger } = this.options;
    const log = logger.child({ component: "github", installation_id: installationId ?? "app" });
    const maxInlineWaitMs = this.options.maxInlineWaitMs ?? 60_000;
    const inlineRetries = this.options.inlineRetries ?? 2;
    const timeoutMs = this.options.requestTimeoutMs ?? 30_000;
    const onLimit =
      (kind: string) =>
      (
        retryAfter: number,
        request: { method?: string; url?: string },
        _octokit: unknown,
        retryCount: number,
      ) => {
        const waitInline = retryAfter * 1000 <= maxInlineWaitMs && retryCount < inlineRetries;
        log.warn(
          { method: request.method, route: request.url, retry_after_s: retryAfter, retry_count: retryCount },
          waitInline
            ? `GitHub ${kind}: waiting before the next try`
            : `GitHub ${kind}: handing the call back`,
        );
        return waitInline;
      };
    return new MainlineOctokit({
      baseUrl: settings.apiUrl,
      userAgent: "mainline-github-app",
      authStrategy: createAppAuth,
      auth: {
        appId: settings.appId,
        privateKey: settings.privateKey,
        cache: this.tokens,
        ...(installationId === undefined ? {} : { installationId }),
      },
      // Octokit's own log lines carry no request headers; ours never pass the options object through.
      log: {
        debug: () => undefined,
        info: (message: string) => log.info(message),
        warn: (message: string) => log.warn(message),
        error: (message: string) => log.error(message),
      },
      throttle: {
        id: `installation-${installationId ?? "app"}`,
        write: this.writeGroup,
        notifications: this.notificationGroup,
        onRateLimit: onLimit("rate limit"),
        onSecondaryRateLimit: onLimit("secondary rate limit"),
      },
      retry: {
        retryAfterBaseValue: this.options.retryUnitMs ?? 1000,
        // 429 is left to the throttling plugin and the caller's outbox, which both honour retry-after; 405 and
        // 409 are GitHub's answers to a merge it will not do (not mergeable, head moved): asking again changes nothing.
        doNotRetry: [400, 401, 403, 404, 405, 409, 410, 422, 429, 451],
      },
      request: {
        fetch: (url: string | URL, init?: RequestInit) =>
          fetch(url, {
            ...init,
            signal: init?.signal
              ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
              : AbortSignal.timeout(timeoutMs),
          }),
      },
    });
  }
}
