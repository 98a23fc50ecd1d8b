import type { Collection, Store } from "@mainline/kit/store/index";
import { testKeyOf, type TestStatusRecord } from "../domain/test-status.js";

type TestStatusDocument = TestStatusRecord & { _id: string };

/** Tests currently flaky or broken, per repository (healthy ones are not kept). */
export class TestStatusStore {
  private constructor(private readonly tests: Collection<TestStatusDocument>) {}

  static open(store: Store): TestStatusStore {
    return new TestStatusStore(store.collection<TestStatusDocument>("test_statuses"));
  }

  async all(): Promise<TestStatusRecord[]> {
    return (await this.tests.find({})).map(({ _id, ...record }) => record);
  }

  async put(record: TestStatusRecord): Promise<void> {
    const _id = testKeyOf(record);
    await this.tests.replaceOne({ _id }, { _id, ...record }, { upsert: true });
  }

  async drop(key: string): Promise<void> {
    await this.tests.deleteOne({ _id: key });
  }
}
