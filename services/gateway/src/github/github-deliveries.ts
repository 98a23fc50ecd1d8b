import type { Collection, Store } from "@mainline/kit/store/index";

export type DeliveryOutcome = "applied" | "ignored" | "refused" | "queued" | "failed";

export interface GitHubDelivery {
  /** X-GitHub-Delivery: GitHub keeps it when a delivery is redelivered. */
  _id: string;
  event: string;
  action: string;
  /** "" when the installation is not (yet) known to be mapped to an organisation. */
  org: string;
  installationId: number;
  repository: string;
  /** queued: kept to be retried (a service was unavailable, or the gateway died while handling it). */
  outcome: DeliveryOutcome;
  reason: string;
  reply?: string;
  at: string;
  /** While queued: the exact body GitHub signed, when to try next, and how often it was tried. */
  payload?: string;
  nextAttemptAt?: string;
  attempts?: number;
}

/** GitHub redelivers on request for a few days; a record older than this is dropped. */
const KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/**
 * A delivery is kept before it is handled; the retry loop leaves it alone this long, so a delivery still being
 * handled (gRPC deadlines are 30 s) is not handled twice at once, and only one the gateway died on is picked up.
 */
export const FIRST_RETRY_AFTER_MS = 60_000;
/** Bodies above this are handled without a kept copy (a store value must stay far below NATS's 1 MiB limit). */
export const MAX_KEPT_BODY_BYTES = 256 * 1024;

/**
 * Deliveries by delivery id. Each is kept (`queued`, with its body) before it is handled and recorded with its
 * outcome after everything it causes is done (each step idempotent by the delivery id): one the gateway died on,
 * or that met an unavailable service, is completed by the retry loop or by GitHub's redelivery, and one handled to
 * the end is answered as a duplicate and changes nothing.
 */
export class GitHubDeliveries {
  private lastPrune = 0;

  private constructor(
    private readonly docs: Collection<GitHubDelivery>,
    private readonly clock: () => Date,
  ) {}

  static async open(store: Store, clock: () => Date = () => new Date()): Promise<GitHubDeliveries> {
    const docs = store.collection<GitHubDelivery>("github_deliveries");
    await docs.createIndex({ org: 1, at: -1 });
    await docs.createIndex({ outcome: 1, nextAttemptAt: 1 });
    await docs.createIndex({ at: 1 });
    return new GitHubDeliveries(docs, clock);
  }

  get(deliveryId: string): Promise<GitHubDelivery | null> {
    return this.docs.findOne({ _id: deliveryId });
  }

  /** Keeps a delivery about to be handled; a second copy of the same delivery keeps the first. */
  async keep(delivery: {
    _id: string;
    event: string;
    payload: string;
    installationId: number;
  }): Promise<void> {
    const now = this.clock();
    await this.docs.updateOne(
      { _id: delivery._id },
      {
        $setOnInsert: {
          event: delivery.event,
          action: "",
          org: "",
          installationId: delivery.installationId,
          repository: "",
          outcome: "queued",
          reason: "being handled",
          at: now.toISOString(),
          payload: delivery.payload,
          attempts: 0,
          nextAttemptAt: new Date(now.getTime() + FIRST_RETRY_AFTER_MS).toISOString(),
        },
      },
      { upsert: true },
    );
  }

  /** A kept delivery met a failure that may pass: try again after `delayMs`. */
  async retryLater(deliveryId: string, reason: string, delayMs: number): Promise<void> {
    const now = this.clock();
    await this.docs.updateOne(
      { _id: deliveryId, outcome: "queued" },
      {
        $set: {
          reason,
          at: now.toISOString(),
          nextAttemptAt: new Date(now.getTime() + delayMs).toISOString(),
        },
        $inc: { attempts: 1 },
      },
    );
  }

  /** Handled to the end: the outcome replaces the kept body. */
  async done(delivery: Omit<GitHubDelivery, "at" | "payload" | "nextAttemptAt" | "attempts">): Promise<void> {
    const now = this.clock();
    await this.docs.replaceOne(
      { _id: delivery._id },
      { ...delivery, at: now.toISOString() },
      { upsert: true },
    );
    if (now.getTime() - this.lastPrune > PRUNE_EVERY_MS) {
      this.lastPrune = now.getTime();
      await this.docs.deleteMany({ at: { $lt: new Date(now.getTime() - KEEP_MS).toISOString() } });
    }
  }

  /** Kept deliveries whose next attempt is due, oldest first. */
  due(limit: number): Promise<GitHubDelivery[]> {
    return this.docs.find(
      { outcome: "queued", nextAttemptAt: { $lte: this.clock().toISOString() } },
      { sort: { nextAttemptAt: 1 }, limit },
    );
  }

  /** The organisation's latest deliveries, newest first (what `mainline github status` shows). */
  recent(org: string, limit = 20): Promise<GitHubDelivery[]> {
    return this.docs.find({ org }, { sort: { at: -1 }, limit });
  }
}
