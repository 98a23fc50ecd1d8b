import type { Collection, Store } from "@mainline/kit/store/index";
import type { Observation } from "../domain/observation.js";

type ObservationDocument = Omit<Observation, "id"> & { _id: string };

/** The observations of the last hour: what keeps the one-hour windows right across a restart. */
export class ObservationStore {
  private constructor(private readonly observations: Collection<ObservationDocument>) {}

  static async open(store: Store): Promise<ObservationStore> {
    const observations = store.collection<ObservationDocument>("observations");
    await observations.createIndex({ at: 1 });
    return new ObservationStore(observations);
  }

  async since(from: number): Promise<Observation[]> {
    const docs = await this.observations.find({ at: { $gt: from } }, { sort: { at: 1 } });
    return docs.map(({ _id, ...rest }) => ({ id: _id, ...rest }));
  }

  /** Idempotent: an observation is keyed by its event, so a redelivered event stores nothing twice. */
  async put(observations: readonly Observation[]): Promise<void> {
    for (const { id, ...rest } of observations) {
      await this.observations.replaceOne({ _id: id }, { _id: id, ...rest }, { upsert: true });
    }
  }

  async dropBefore(until: number): Promise<number> {
    return (await this.observations.deleteMany({ at: { $lte: until } })).deletedCount;
  }
}
