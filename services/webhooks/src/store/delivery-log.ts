import type { Collection, Store } from "@mainline/kit/store/index";

/** One attempt to deliver one event to one subscription. */
export interface DeliveryRecord {
  _id: string;
  org: string;
  subscriptionId: string;
  /** The webhook-id header. */
  webhookId: string;
  eventType: string;
  time: Date;
  /** 1 for the first try since the subscription was (re-)enabled. */
  attempt: number;
  statusCode?: number;
  error?: string;
  durationMs: number;
  succeeded: boolean;
}

/** Attempts kept per subscription; older ones are pruned as new ones arrive. */
const KEEP_PER_SUBSCRIPTION = 1000;

/** The delivery log: what users read to see why their endpoint gets nothing, and the attempt counter. */
export class DeliveryLog {
  private constructor(private readonly records: Collection<DeliveryRecord>) {}

  static async open(store: Store): Promise<DeliveryLog> {
    const records = store.collection<DeliveryRecord>("deliveries");
    await records.createIndex({ subscriptionId: 1, time: -1 });
    await records.createIndex({ subscriptionId: 1, webhookId: 1 });
    return new DeliveryLog(records);
  }

  async record(entry: Omit<DeliveryRecord, "_id">): Promise<void> {
    await this.records.insertOne(entry);
    // Every thousandth-ish write trims the oldest, so a chatty subscription cannot grow without bound.
    if (Math.random() < 0.01) await this.prune(entry.subscriptionId);
  }

  /** Attempts at one event since `since` (the subscription's last (re-)enabling). */
  attemptsSince(subscriptionId: string, webhookId: string, since: Date): Promise<number> {
    return this.records.countDocuments({ subscriptionId, webhookId, time: { $gte: since } });
  }

  /**
   * Whether an attempt at the event succeeded: a replica that died after the receiver's 2xx was recorded but
   * before the job was acked leaves it to another replica, which must not send it again.
   */
  async succeeded(subscriptionId: string, webhookId: string): Promise<boolean> {
    return (await this.records.countDocuments({ subscriptionId, webhookId, succeeded: true })) > 0;
  }

  /** Most recent first. */
  recent(subscriptionId: string, limit: number): Promise<DeliveryRecord[]> {
    return this.records.find({ subscriptionId }, { sort: { time: -1 }, limit });
  }

  async forget(subscriptionId: string): Promise<void> {
    await this.records.deleteMany({ subscriptionId });
  }

  private async prune(subscriptionId: string): Promise<void> {
    const kept = await this.records.find(
      { subscriptionId },
      { sort: { time: -1 }, skip: KEEP_PER_SUBSCRIPTION, limit: 1 },
    );
    const oldestKept = kept[0];
    if (oldestKept) await this.records.deleteMany({ subscriptionId, time: { $lte: oldestKept.time } });
  }
}
