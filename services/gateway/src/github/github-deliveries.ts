import type { Collection, Store } from "@mainline/kit/store/index";

export interface GitHubDelivery {
  /** X-GitHub-Delivery: GitHub keeps it when a delivery is redelivered. */
  _id: string;
  event: string;
  action: string;
  /** "" when the installation is not mapped to an organisation. */
  org: string;
  installationId: number;
  repository: string;
  outcome: "applied" | "ignored" | "refused";
  reason: string;
  reply?: string;
  at: string;
}

/** GitHub redelivers on request for a few days; a record older than this is dropped. */
const KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Deliveries handled to the end, by delivery id. A delivery is recorded only after everything it causes is done
 * (each step idempotent by the delivery id), so a gateway that dies half-way leaves no record and GitHub's
 * redelivery completes the work; a delivery found here is answered as a duplicate and changes nothing.
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
    await docs.createIndex({ at: 1 });
    return new GitHubDeliveries(docs, clock);
  }

  get(deliveryId: string): Promise<GitHubDelivery | null> {
    return this.docs.findOne({ _id: deliveryId });
  }

  async done(delivery: Omit<GitHubDelivery, "at">): Promise<void> {
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

  /** The organisation's latest deliveries, newest first (what `mainline github status` shows). */
  recent(org: string, limit = 20): Promise<GitHubDelivery[]> {
    return this.docs.find({ org }, { sort: { at: -1 }, limit });
  }
}
