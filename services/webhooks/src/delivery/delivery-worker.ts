import { MainlineError } from "@mainline/kit/errors/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { DeliveryJob } from "@mainline/proto/webhooks";
import { delayAfterFailure, maxAttempts, type RetrySchedule } from "../domain/retry-schedule.js";
import type { DeliveryLog } from "../store/delivery-log.js";
import type { SubscriptionRepository } from "../store/subscription-repository.js";
import type { HttpSender } from "./http-sender.js";

/**
 * Thrown by the worker to have JetStream hand the job back after `retryAfterMs`. The subscription's
 * consumer holds one job at a time, so the jobs behind it wait too: order is kept.
 */
export class RetryDeliveryLater extends MainlineError {
  readonly code = "UNAVAILABLE";
  readonly retryable = true;
  override readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** How long a job of a disabled subscription waits before its consumer, stopped meanwhile, can take it. */
const HELD_DELAY_MS = 1000;

export interface DeliveryWorkerOptions {
  subscriptions: SubscriptionRepository;
  log: DeliveryLog;
  sender: HttpSender;
  schedule: RetrySchedule;
  logger: Logger;
  /** Called when a subscription is disabled, to stop its consumer (never awaited by the worker). */
  onDisabled(subscriptionId: string): void;
  now?: () => Date;
  random?: () => number;
}

/** How long a delivered job keeps trying to log its success before it gives up (and may be sent again). */
const RECORD_DELIVERED_PATIENCE_MS = 20_000;

/** Delivers one job: one signed attempt, one log entry, then done, retry later, or disable the subscription. */
export class DeliveryWorker {
  private readonly now: () => Date;
  private readonly random: () => number;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
  }

  async deliver(job: DeliveryJob): Promise<void> {
    const { subscriptions, log, sender, schedule, logger } = this.options;
    const subscription = await subscriptions.byId(job.subscriptionId);
    // Deleted: its queue is being purged; nothing to deliver to.
    if (subscription === null) return;
    if (subscription.disabled) {
      this.options.onDisabled(subscription._id);
      throw new RetryDeliveryLater(`subscription ${subscription._id} is disabled`, HELD_DELAY_MS);
    }
    // Delivered already (by a replica that died before acking): once per webhook-id, not once per process.
    if (await log.succeeded(subscription._id, job.webhookId)) return;
    const attempt = (await log.attemptsSince(subscription._id, job.webhookId, subscription.enabledAt)) + 1;
    const outcome = await sender.send(
      { url: subscription.url, secret: subscription.secret, webhookId: job.webhookId, body: job.body },
      this.now,
    );
    const entry = {
      org: subscription.org,
      subscriptionId: subscription._id,
      webhookId: job.webhookId,
      eventType: job.eventType,
      time: this.now(),
      attempt,
      ...(outcome.statusCode !== undefined && { statusCode: outcome.statusCode }),
      ...(outcome.error !== undefined && { error: outcome.error }),
      durationMs: outcome.durationMs,
      succeeded: outcome.succeeded,
    };
    if (outcome.succeeded) {
      await this.recordDelivered(entry);
      return;
    }
    await log.record(entry);

    const delay = delayAfterFailure(schedule, attempt, this.random());
    if (delay !== undefined) {
      logger.info(
        {
          subscription: subscription._id,
          webhookId: job.webhookId,
          attempt,
          delayMs: delay,
          error: outcome.error,
        },
        "webhook delivery failed; will retry",
      );
      throw new RetryDeliveryLater(outcome.error ?? "delivery failed", delay);
    }
    const reason =
      `${job.eventType} event ${job.webhookId} failed ${maxAttempts(schedule)} attempts; ` +
      `last error: ${outcome.error ?? "unknown"}`;
    await subscriptions.disable(subscription._id, reason, this.now());
    logger.warn({ subscription: subscription._id, reason }, "webhook subscription disabled");
    this.options.onDisabled(subscription._id);
    // Held, not dropped: re-enabling the subscription delivers this event first.
    throw new RetryDeliveryLater(reason, HELD_DELAY_MS);
  }

  /**
   * The receiver has it: the log must say so, or the job comes back and the receiver gets it again under the
   * same webhook-id. A store that is briefly out of reach (a NATS node lost, its streams electing leaders) is
   * waited out here rather than by a redelivery.
   */
  private async recordDelivered(entry: Parameters<DeliveryLog["record"]>[0]): Promise<void> {
    const giveUpAt = Date.now() + RECORD_DELIVERED_PATIENCE_MS;
    for (let delay = 250; ; delay = Math.min(delay * 2, 2_000)) {
      try {
        await this.options.log.record(entry);
        return;
      } catch (error) {
        const retryable = error instanceof MainlineError && error.retryable;
        if (!retryable || Date.now() + delay > giveUpAt) throw error;
        this.options.logger.warn({ webhookId: entry.webhookId, err: error }, "delivered; recording it again");
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
