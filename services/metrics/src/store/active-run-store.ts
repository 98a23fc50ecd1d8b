import type { Store } from "@mainline/kit/store/index";
import type { ActiveTestRun } from "../domain/test-run-facts.js";
import { SequencedRecords } from "./sequenced-records.js";

/** Test runs in progress: the testing slots, and the kind a later event of the run may not carry. */
export class ActiveRunStore extends SequencedRecords<ActiveTestRun> {
  static open(store: Store): ActiveRunStore {
    return new ActiveRunStore(store, "active_test_runs");
  }
}
