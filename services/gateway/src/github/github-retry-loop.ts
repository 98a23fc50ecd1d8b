import type { Logger } from "@mainline/kit/logging/index";
import { handleGitHubWebhook, type GitHubWebhookDeps } from "./github-webhook-handler.js";

/**
 * Hands kept deliveries whose next attempt is due back to the webhook handler: those that met an unavailable
 * service, and those a gateway died on before recording them. Every replica runs one; two replicas handling the
 * same delivery at once change nothing twice (each step is idempotent by the delivery id).
 */
export class GitHubRetryLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly deps: GitHubWebhookDeps,
    private readonly options: { pollMs: number; logger: Logger },
  ) {}

  start(): void {
    const tick = () => {
      if (this.stopped) return;
      this.running = this.retryDue()
        .catch((error: unknown) =>
          this.options.logger.warn({ err: error }, "github retry loop: a round failed"),
        )
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.options.pollMs);
        });
    };
    this.timer = setTimeout(tick, this.options.pollMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async retryDue(): Promise<void> {
    for (const kept of await this.deps.deliveries.due(20)) {
      if (this.stopped) return;
      const log = this.options.logger.child({
        delivery: kept._id,
        event: kept.event,
        attempts: kept.attempts,
      });
      try {
        const payload = JSON.parse(kept.payload ?? "null") as unknown;
        const result = await handleGitHubWebhook(this.deps, kept.event, kept._id, payload);
        log.info({ outcome: result.outcome, reason: result.reason }, "github webhook retried");
      } catch (error) {
        // The handler recorded it as refused or failed: nothing more to do with it.
        log.warn({ err: error }, "github webhook retried: given up");
      }
    }
  }
}
