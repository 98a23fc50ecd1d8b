import type { Collection, Store } from "@mainline/kit/store/index";
import type { ActiveTestRun } from "../domain/test-run-facts.js";

type ActiveRunDocument = ActiveTestRun & { _id: string };

/** Test runs in progress: the testing slots, and the kind a later event of the run may not carry. */
export class ActiveRunStore {
  private constructor(private readonly runs: Collection<ActiveRunDocument>) {}

  static open(store: Store): ActiveRunStore {
    return new ActiveRunStore(store.collection<ActiveRunDocument>("active_test_runs"));
  }

  async all(): Promise<ActiveTestRun[]> {
    return (await this.runs.find({})).map(({ _id, ...run }) => run);
  }

  async put(run: ActiveTestRun): Promise<void> {
    await this.runs.replaceOne({ _id: run.runId }, { _id: run.runId, ...run }, { upsert: true });
  }

  async drop(runId: string): Promise<void> {
    await this.runs.deleteOne({ _id: runId });
  }
}
