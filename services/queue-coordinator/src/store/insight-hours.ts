import type { Collection, Store } from "@mainline/kit/store/index";
import { INSIGHTS_RETENTION_HOURS } from "@mainline/contract";
import { HOUR_MS, type InsightsHour } from "../domain/index.js";

const DAY_MS = 24 * HOUR_MS;

/** One queue's finished hours of one UTC day: a 90-day query reads 91 documents per queue, not 2,160. */
interface InsightDayDocument {
  /** `${queueKey}@${day}`. */
  _id: string;
  queueKey: string;
  org: string;
  day: number;
  /** By the hour's start (ms, as a string key). */
  hours: Record<string, InsightsHour>;
}

/** Days older than this are dropped as newer hours are sealed: the longest period, and a day to carry from. */
const KEEP_MS = INSIGHTS_RETENTION_HOURS * HOUR_MS + 2 * DAY_MS;

/**
 * The finished hours of every queue (issue 29), a document per queue and day, shared by every replica. A sealed
 * hour never changes, so writing it is an idempotent $set of its own key: a flush repeated after a crash or by
 * another replica changes nothing, and two replicas sealing different hours of a day both land.
 */
export class InsightHours {
  /** Complete days already read, by `${queueKey}@${day}` (see since). */
  private readonly complete = new Map<string, InsightsHour[]>();

  private constructor(private readonly days: Collection<InsightDayDocument>) {}

  static async open(store: Store): Promise<InsightHours> {
    const days = store.collection<InsightDayDocument>("queue_insight_days");
    await days.createIndex({ queueKey: 1, day: 1 });
    return new InsightHours(days);
  }

  async put(org: string, queueKey: string, sealed: readonly InsightsHour[]): Promise<void> {
    const byDay = new Map<number, InsightsHour[]>();
    for (const h of sealed) {
      const day = Math.floor(h.hour / DAY_MS) * DAY_MS;
      byDay.set(day, [...(byDay.get(day) ?? []), h]);
    }
    for (const [day, hours] of byDay) {
      const set: Record<string, unknown> = { queueKey, org, day };
      for (const h of hours) set[`hours.${h.hour}`] = h;
      await this.days.updateOne({ _id: `${queueKey}@${day}` }, { $set: set }, { upsert: true });
    }
    const newest = sealed.at(-1)?.hour;
    if (newest === undefined) return;
    await this.days.deleteMany({ queueKey, day: { $lt: newest - KEEP_MS } });
    for (const key of this.complete.keys())
      if (key.startsWith(`${queueKey}@`) && Number(key.slice(queueKey.length + 1)) < newest - KEEP_MS)
        this.complete.delete(key);
  }

  /**
   * A queue's hours from `from` on, oldest first, after the last one before it (the state carried in). Days
   * before `completeBefore` hold every hour they will ever hold (the queue's open hour is later, and no sealed
   * hour of theirs waits in its document): they are kept in memory once read, as they never change.
   */
  async since(queueKey: string, from: number, completeBefore: number): Promise<InsightsHour[]> {
    const fromDay = Math.floor(from / DAY_MS) * DAY_MS;
    const cached: InsightsHour[][] = [];
    let day = fromDay;
    for (; day + DAY_MS <= completeBefore; day += DAY_MS) {
      const hours = this.complete.get(`${queueKey}@${day}`);
      if (!hours) break;
      cached.push(hours);
    }
    // The state carried in: the day before's last hour, from memory when that day is complete and not empty (a
    // query for the latest earlier day reads every day of the queue).
    const dayBefore = this.complete.get(`${queueKey}@${fromDay - DAY_MS}`)?.slice(-1);
    const [before, read] = await Promise.all([
      dayBefore?.length
        ? dayBefore
        : this.days
            .findOne({ queueKey, day: { $lt: fromDay } }, { sort: { day: -1 } })
            .then((doc) => (doc ? sortedHours(doc).slice(-1) : [])),
      this.days.find({ queueKey, day: { $gte: day } }, { sort: { day: 1 } }),
    ]);
    const readByDay = new Map(read.map((d) => [d.day, sortedHours(d)]));
    for (let d = day; d + DAY_MS <= completeBefore; d += DAY_MS)
      this.complete.set(`${queueKey}@${d}`, readByDay.get(d) ?? []);
    const hours = [...before, ...cached.flat(), ...[...readByDay.values()].flat()];
    // The report needs only the last hour before `from`; older ones of the same day are dropped here.
    const firstIn = hours.findIndex((h) => h.hour >= from);
    const start = firstIn === -1 ? Math.max(0, hours.length - 1) : Math.max(0, firstIn - 1);
    return hours.slice(start);
  }
}

const sortedHours = (doc: InsightDayDocument) => Object.values(doc.hours).sort((a, b) => a.hour - b.hour);
