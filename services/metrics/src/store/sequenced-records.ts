import { AlreadyExistsError, ConflictError } from "@mainline/kit/errors/index";
import type { Collection, Store, StoreFilter } from "@mainline/kit/store/index";

/**
 * One piece of gauge state as the store holds it: the value (null once it is gone: a tombstone) and the stream
 * sequence of the lifecycle event, or the reconciliation mark, that wrote it last. Replicas share these records,
 * so the sequence is what tells a reconciliation that an event of any replica changed the record after its
 * snapshot was asked for (DESIGN rule 5: decided in the store, never in one process's memory).
 */
export interface SequencedRecord<T> {
  value: T | null;
  seq: number;
  /** The sequence as stored: undefined for records written before sequences were kept. */
  readonly storedSeq?: number | undefined;
}

type RecordDocument = { _id: string; seq?: number; gone?: true } & Record<string, unknown>;

/**
 * Records keyed by a string, every write compare-and-set on the record as the writer read it: a writer that
 * lost to another replica learns it (false) and re-reads instead of overwriting a newer state with an older one.
 */
export class SequencedRecords<T extends object> {
  private readonly docs: Collection<RecordDocument>;

  protected constructor(store: Store, collection: string) {
    this.docs = store.collection<RecordDocument>(collection);
  }

  async get(key: string): Promise<SequencedRecord<T> | undefined> {
    const doc = await this.docs.findOne({ _id: key });
    return doc === null ? undefined : recordOf<T>(doc);
  }

  /** Every record, tombstones included, by key. */
  async all(): Promise<Map<string, SequencedRecord<T>>> {
    const docs = await this.docs.find({});
    return new Map(docs.map((doc) => [doc._id, recordOf<T>(doc)]));
  }

  /** The live values only. */
  async values(): Promise<T[]> {
    const docs = await this.docs.find({ gone: { $exists: false } });
    return docs.map((doc) => recordOf<T>(doc).value as T);
  }

  /** Writes `next` if the record is still `seen` (undefined: absent); false when another writer came first. */
  async set(key: string, seen: SequencedRecord<T> | undefined, next: SequencedRecord<T>): Promise<boolean> {
    const doc: RecordDocument =
      next.value === null
        ? { _id: key, seq: next.seq, gone: true }
        : { ...(next.value as Record<string, unknown>), _id: key, seq: next.seq };
    return lostRace(async () => {
      if (seen === undefined) {
        await this.docs.insertOne(doc);
        return true;
      }
      const { matchedCount } = await this.docs.replaceOne(filterOf(key, seen), doc);
      return matchedCount === 1;
    });
  }

  /** Removes the record if it is still `seen`; false when another writer came first. */
  async remove(key: string, seen: SequencedRecord<T>): Promise<boolean> {
    return lostRace(async () => (await this.docs.deleteOne(filterOf(key, seen))).deletedCount === 1);
  }
}

function recordOf<T>(doc: RecordDocument): SequencedRecord<T> {
  const { _id, seq, gone, ...value } = doc;
  return { value: gone ? null : (value as T), seq: seq ?? 0, storedSeq: seq };
}

function filterOf<T>(key: string, seen: SequencedRecord<T>): StoreFilter<RecordDocument> {
  return { _id: key, seq: seen.storedSeq === undefined ? { $exists: false } : seen.storedSeq };
}

/** A compare-and-set lost to another process (the embedded store's revision check, or a taken `_id`) is a false. */
async function lostRace(write: () => Promise<boolean>): Promise<boolean> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConflictError || error instanceof AlreadyExistsError) return false;
    throw error;
  }
}
