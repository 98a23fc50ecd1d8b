import type { Collection, Store } from "@mainline/kit/store/index";
import { HOUR_MS, hourOf } from "../domain/index.js";
import type { FailureHourDocument } from "./documents.js";
import { scopeHourKey } from "./repository-key.js";

/** One small document per (test, hour) with failures: what makes list-failing-tests a range scan. */
export class FailureHourRepository {
  private constructor(private readonly hours: Collection<FailureHourDocument>) {}

  static async open(store: Store): Promise<FailureHourRepository> {
    const hours = store.collection<FailureHourDocument>("failure_hours");
    await hours.createIndex({ scopeHour: 1 });
    return new FailureHourRepository(hours);
  }

  /** Idempotent: the same failure recorded twice (a redelivered upload) leaves one time. */
  async recordFailure(org: string, repoKey: string, testId: string, at: number): Promise<void> {
    const hour = hourOf(at);
    await this.hours.updateOne(
      { _id: `${testId}:${hour}` },
      {
        $setOnInsert: { org, repoKey, testId, hour, scopeHour: scopeHourKey(org, repoKey, hour) },
        $addToSet: { times: at },
      },
      { upsert: true },
    );
  }

  /** Distinct ids of the tests with a failure in [start, end), sorted (the listing's stable order). */
  async failingTestIds(org: string, repoKey: string, start: number, end: number): Promise<string[]> {
    const firstHour = hourOf(start);
    const lastHour = hourOf(end - 1);
    const docs = await this.hours.find(
      {
        scopeHour: {
          $gte: scopeHourKey(org, repoKey, firstHour),
          $lt: scopeHourKey(org, repoKey, lastHour + HOUR_MS),
        },
      },
      { projection: { testId: 1, hour: 1, times: 1, org: 1, repoKey: 1 } },
    );
    const ids = new Set<string>();
    for (const doc of docs) {
      // The key already scopes by organisation and repository; checked again so no key layout
      // mistake can ever leak another organisation's tests.
      if (doc.org !== org || doc.repoKey !== repoKey || ids.has(doc.testId)) continue;
      const inside =
        doc.hour > firstHour && doc.hour < lastHour ? true : doc.times.some((at) => at >= start && at < end);
      if (inside) ids.add(doc.testId);
    }
    return [...ids].sort();
  }
}
