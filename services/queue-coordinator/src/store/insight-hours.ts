import type { Collection, Store } from "@mainline/kit/store/index";
import { INSIGHTS_RETENTION_HOURS } from "@mainline/contract";
import { HOUR_MS, type InsightsHour } from "../domain/index.js";

interface InsightHourDocument {
  /** `${queueKey}@${hour}`: a sealed hour written again (a retried flush) replaces itself with the same counts. */
  _id: string;
  queueKey: string;
  org: string;
  hour: number;
  record: InsightsHour;
}

/** Hours older than this are dropped as newer ones are sealed: the longest period, and a day to carry from. */
const KEEP_MS = (INSIGHTS_RETENTION_HOURS + 24) * HOUR_MS;

/**
 * The finished hours of every queue (issue 29), one document each, shared by every replica. A sealed hour never
 * changes, so writing it is an idempotent replace by id: a flush repeated after a crash or by another replica
 * changes nothing.
 */
export class InsightHours {
  private constructor(private readonly hours: Collection<InsightHourDocument>) {}

  static async open(store: Store): Promise<InsightHours> {
    const hours = store.collection<InsightHourDocument>("queue_insight_hours");
    await hours.createIndex({ queueKey: 1, hour: 1 });
    await hours.createIndex({ org: 1, hour: 1 });
    return new InsightHours(hours);
  }

  async put(org: string, queueKey: string, sealed: readonly InsightsHour[]): Promise<void> {
    for (const record of sealed) {
      const doc = { _id: `${queueKey}@${record.hour}`, queueKey, org, hour: record.hour, record };
      await this.hours.replaceOne({ _id: doc._id }, doc, { upsert: true });
    }
    const newest = sealed.at(-1)?.hour;
    if (newest !== undefined) await this.hours.deleteMany({ queueKey, hour: { $lt: newest - KEEP_MS } });
  }

  /** A queue's hours from `from` on, oldest first, after the last one before it (the state carried in). */
  async since(queueKey: string, from: number): Promise<InsightsHour[]> {
    const [before, inPeriod] = await Promise.all([
      this.hours.findOne({ queueKey, hour: { $lt: from } }, { sort: { hour: -1 } }),
      this.hours.find({ queueKey, hour: { $gte: from } }, { sort: { hour: 1 } }),
    ]);
    return [...(before ? [before.record] : []), ...inPeriod.map((d) => d.record)];
  }
}
