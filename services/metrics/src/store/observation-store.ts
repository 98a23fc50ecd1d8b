import type { Collection, Store } from "@mainline/kit/store/index";
import type { Observation } from "../domain/observation.js";
import { queueKeyOf, type QueueIdentity } from "../domain/queue-identity.js";

type ObservationDocument = Omit<Observation, "id"> & { _id: string };
/**
 * Kept in the observations' own collection: no bucket of its own, and the embedded store's copy of one bucket
 * follows its writes in order, so a replica that sees a generation sees the observations counted in it. It has
 * no `at`, so no window query meets it. `recent` lists the ids each of the last writes brought, oldest first.
 */
type GenerationDocument = {
  _id: typeof GENERATION_ID;
  n: number;
  recent?: { ids: string[] }[];
  /** Observations at or before this time were pruned: no copy shows them any longer. */
  prunedUpTo?: number;
};

const GENERATION_ID = "~generation";
/** Writes whose ids the generation document lists: a replica further behind than this reads everything again. */
const RECENT_WRITES = 256;
/**
 * A replica that died between writing observations and counting the write leaves them uncounted: the copy is
 * read again at least this often, so no replica answers without them for longer.
 */
const MAX_COPY_AGE_MS = 5 * 60_000;

/** What one replica read: every observation of the store, in time order, and the generation it read them at. */
interface ObservationCopy {
  generation: number;
  readAt: number;
  byTime: readonly Observation[];
  ids: ReadonlySet<string>;
}

/**
 * The observations of the last hour: what keeps the one-hour windows right across a restart.
 *
 * Every write is counted in a generation number in the store, after the observations are written. A scrape reads
 * that number (one document) and reads the observations again only when it moved: an observation never changes
 * once written (its id is its event's), so until another write the copy this replica read is what the store
 * holds, and every replica answers alike (DESIGN rule 5). Observations leaving the window need no write: the
 * window is cut from the copy at each read.
 */
export class ObservationStore {
  private copy: ObservationCopy | undefined;
  /** One object per queue for the observations of the copy: the exposition looks a queue up once per object. */
  private queues = new Map<string, QueueIdentity>();

  private constructor(
    private readonly observations: Collection<ObservationDocument>,
    private readonly generations: Collection<GenerationDocument>,
  ) {}

  static async open(store: Store): Promise<ObservationStore> {
    const observations = store.collection<ObservationDocument>("observations");
    await observations.createIndex({ at: 1 });
    return new ObservationStore(observations, store.collection<GenerationDocument>("observations"));
  }

  /**
   * The observations after `from`, in the order of their time, ties by id (every replica sums the same values in
   * the same order), and the generation they were read at: the same generation, the same observations.
   */
  async since(from: number): Promise<{ generation: number; observations: readonly Observation[] }> {
    const counted = await this.generations.findOne({ _id: GENERATION_ID });
    const generation = counted?.n ?? 0;
    const recent = counted?.recent ?? [];
    let copy = this.copy;
    const behind = copy === undefined ? -1 : generation - copy.generation;
    if (
      copy === undefined ||
      behind < 0 ||
      behind > recent.length ||
      performance.now() - copy.readAt > MAX_COPY_AGE_MS
    ) {
      this.queues = new Map();
      copy = byTimeCopy(generation, performance.now(), await this.readAll());
    } else if (behind > 0) {
      // Only what the writes since this copy brought; one is absent when a prune removed it meanwhile.
      const added: Observation[] = [];
      for (const { ids } of recent.slice(recent.length - behind)) {
        for (const id of ids) {
          if (copy.ids.has(id)) continue;
          const doc = await this.observations.findOne({ _id: id });
          if (doc !== null) added.push(this.observationOf(doc));
        }
      }
      const prunedUpTo = counted?.prunedUpTo ?? -Infinity;
      const kept = copy.byTime.filter((o) => o.at > prunedUpTo);
      copy = byTimeCopy(generation, copy.readAt, [...kept, ...added]);
    }
    this.copy = copy;
    return { generation, observations: copy.byTime.slice(firstAfter(copy.byTime, from)) };
  }

  /** Idempotent: an observation is keyed by its event, so a redelivered event stores nothing twice. */
  async put(observations: readonly Observation[]): Promise<void> {
    for (const { id, ...rest } of observations) {
      await this.observations.replaceOne({ _id: id }, { _id: id, ...rest }, { upsert: true });
    }
    // Counted after the writes: a replica that reads the new number finds them all.
    if (observations.length > 0) await this.count(observations.map((o) => o.id));
  }

  async dropBefore(until: number): Promise<number> {
    const { deletedCount } = await this.observations.deleteMany({ at: { $lte: until } });
    // Counted as a write, so that every replica's copy forgets them too.
    if (deletedCount > 0) await this.count([], { prunedUpTo: until });
    return deletedCount;
  }

  private async count(ids: string[], pruned?: { prunedUpTo: number }): Promise<void> {
    await this.generations.updateOne(
      { _id: GENERATION_ID },
      {
        $inc: { n: 1 },
        $push: { recent: { $each: [{ ids }], $slice: -RECENT_WRITES } },
        ...(pruned && { $max: pruned }),
      },
      { upsert: true },
    );
  }

  /** A full read without a filter: the store's cheapest way through every document. */
  private async readAll(): Promise<Observation[]> {
    const docs = (await this.observations.find({})) as (ObservationDocument | GenerationDocument)[];
    const all: Observation[] = [];
    for (const doc of docs)
      if (doc._id !== GENERATION_ID) all.push(this.observationOf(doc as ObservationDocument));
    return all;
  }

  private observationOf({ _id, queue, ...rest }: ObservationDocument): Observation {
    const key = queueKeyOf(queue);
    let shared = this.queues.get(key);
    if (shared === undefined) this.queues.set(key, (shared = Object.freeze(queue)));
    return Object.freeze({ id: _id, queue: shared, ...rest });
  }
}

/** Every replica sums the same values in the same order: time, then id. */
function byTimeCopy(generation: number, readAt: number, observations: Observation[]): ObservationCopy {
  const byTime = observations.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { generation, readAt, byTime, ids: new Set(byTime.map((o) => o.id)) };
}

/** The index of the first observation later than `from` (binary search over the time order). */
function firstAfter(byTime: readonly Observation[], from: number): number {
  let low = 0;
  let high = byTime.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((byTime[middle] as Observation).at > from) high = middle;
    else low = middle + 1;
  }
  return low;
}
