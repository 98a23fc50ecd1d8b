import type { Store } from "@mainline/kit/store/index";
import type { TestStatusRecord } from "../domain/test-status.js";
import { SequencedRecords } from "./sequenced-records.js";

/** Tests currently flaky or broken, per repository (healthy ones are not kept). */
export class TestStatusStore extends SequencedRecords<TestStatusRecord> {
  static open(store: Store): TestStatusStore {
    return new TestStatusStore(store, "test_statuses");
  }
}
