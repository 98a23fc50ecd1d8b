import { Query } from "mingo";
import {
  JETSTREAM_ATTEMPTS,
  isTransientOpeningFailure,
  withAttempts,
  type AttemptPolicy,
} from "../bus/index.js";
import { InvalidArgumentError, MainlineError } from "../errors/index.js";
import { CollectionMemory } from "./collection-memory.js";
import { CollectionWriter } from "./collection-writer.js";
import { DocumentBucket, type BucketFollower, type OpenedBucket } from "./document-bucket.js";
import { encodeDocument } from "./document-codec.js";
import { pinnedId, withStringId } from "./document-ids.js";
import { storeErrorOfKv } from "./kv-errors.js";
import { assertFilter, assertIndexKeys, defaultIndexName } from "./find-options.js";
import type {
  Collection,
  CreateIndexOptions,
  DeleteResult,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  IndexKeys,
  InsertManyResult,
  InsertOneResult,
  NewDocument,
  ProjectionSpec,
  Replacement,
  StoredDocument,
  StoreFilter,
  StoreUpdate,
  UpdateOptions,
  UpdateResult,
} from "./store.js";
import { UniqueReservations } from "./unique-reservations.js";
import { assertReplacement, assertUpdateOperators } from "./update-documents.js";
import { WriteMutex } from "./write-mutex.js";

/**
 * Opening a collection through a leader election or a node joining (see load): its steps wait the client's 5 s
 * each, so the budget is the gRPC deadline, not one request's 12 s.
 */
const OPENING_ATTEMPTS: AttemptPolicy = { ...JETSTREAM_ATTEMPTS, budgetMs: 30_000 };

const NO_MATCH: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null };

function project(doc: StoredDocument, projection: ProjectionSpec | undefined): StoredDocument {
  if (projection === undefined || Object.keys(projection).length === 0) return structuredClone(doc);
  const [projected] = new Query({}).find<StoredDocument>([doc], projection).all();
  return structuredClone(projected ?? doc);
}

/**
 * A collection held in process and made durable in one JetStream key-value bucket: one entry per
 * document, keyed by its `_id`, plus one reservation entry per value of a unique index.
 *
 * Across processes sharing the bucket every rule holds (see CollectionWriter and
 * UniqueReservations): each write first brings memory up to the bucket (a read barrier), decides
 * on it, and writes compare-and-set on the revision it decided on, deciding again when another
 * process wrote first; unique values are reserved in the bucket, so of two processes inserting
 * the same unique key one gets AlreadyExistsError. Memory follows the bucket's feed, and reaches a
 * write of this process only once the bucket acknowledged it.
 *
 * Writes are serialised by a mutex. Reads (find, findOne, countDocuments) answer from memory
 * without a barrier: they see this process's acknowledged writes, and another process's a feed
 * delay later (about a millisecond on a healthy cluster). That is safe because no decision rests
 * on them alone: whatever a read leads to is written through a write here, which re-checks it
 * (a filter on the state read, as `replaceOne({ _id, revision })` does, or a unique key).
 * Indexes are declared by the code that opens the collection (createIndex on start).
 */
export class EmbeddedCollection<T extends StoredDocument> implements Collection<T> {
  private readonly memory: CollectionMemory;
  private readonly reservations: UniqueReservations;
  private readonly mutex = new WriteMutex();
  private loading: Promise<CollectionWriter> | undefined;
  private follower: BucketFollower | undefined;

  constructor(
    readonly collectionName: string,
    private readonly openBucket: () => Promise<OpenedBucket>,
    private readonly assertOpen: () => void,
    reservationGraceMs: number,
  ) {
    this.memory = new CollectionMemory(collectionName);
    this.reservations = new UniqueReservations(collectionName, reservationGraceMs);
  }

  /** Resolves once every write queued so far has finished. */
  idle(): Promise<void> {
    return this.mutex.idle();
  }

  async insertOne(doc: NewDocument<T>): Promise<InsertOneResult> {
    const stored = withStringId(doc);
    return this.writing(async (w, mark) => ({
      insertedId: (await w.attempt(() => w.insert(stored), mark))._id,
    }));
  }

  async insertMany(docs: readonly NewDocument<T>[]): Promise<InsertManyResult> {
    const prepared = docs.map((doc) => withStringId(doc));
    return this.writing(async (w, mark) => {
      const insertedIds: string[] = [];
      // One barrier for the batch: a document or unique key written since then fails its create compare-and-set.
      for (const doc of prepared) {
        insertedIds.push((await w.attempt(() => w.insert(doc), insertedIds.length === 0 ? mark : null))._id);
      }
      return { insertedCount: insertedIds.length, insertedIds };
    });
  }

  /**
   * Reads come from this process's memory, which follows the bucket a few milliseconds behind. A miss is the one
   * answer a caller acts on at once (a 404 for a queue another replica just created), so it passes a read
   * barrier and looks again: a document any process created before the call is found. If the barrier cannot
   * pass (no leader for the bucket's stream), the miss stands, as it would have.
   */
  async findOne(filter: StoreFilter<T>, options: FindOneOptions = {}): Promise<T | null> {
    const [found] = await this.find(filter, { ...options, limit: 1 });
    if (found !== undefined) return found;
    try {
      await (await this.ready()).catchUp();
    } catch {
      return null;
    }
    const [late] = await this.find(filter, { ...options, limit: 1 });
    return late ?? null;
  }

  async find(filter: StoreFilter<T>, options: FindOptions = {}): Promise<T[]> {
    await this.ready();
    return this.select(filter, options).map((doc) => structuredClone(doc) as T);
  }

  async countDocuments(filter: StoreFilter<T> = {}): Promise<number> {
    assertFilter(filter);
    await this.ready();
    return this.memory.count(filter);
  }

  async updateOne(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertUpdateOperators(update);
    return this.writing((w, mark) =>
      w.attempt(async () => {
        const [target] = this.select(filter, { limit: 1 });
        if (target) {
          const after = await w.update(target, update);
          return { ...NO_MATCH, matchedCount: 1, modifiedCount: after === target ? 0 : 1 };
        }
        if (!options.upsert) return NO_MATCH;
        const inserted = await w.upsert(filter, update);
        return { ...NO_MATCH, upsertedCount: 1, upsertedId: inserted._id };
      }, mark),
    );
  }

  async updateMany(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertUpdateOperators(update);
    return this.writing(async (w, mark) => {
      const targets = await w.attempt(() => Promise.resolve(this.select(filter, {})), mark);
      if (targets.length === 0 && options.upsert) {
        // Decided again from the query on a conflict: another process may have inserted a match meanwhile.
        return w.attempt(async () => {
          const [target] = this.select(filter, { limit: 1 });
          if (target) {
            const after = await w.update(target, update);
            return { ...NO_MATCH, matchedCount: 1, modifiedCount: after === target ? 0 : 1 };
          }
          const inserted = await w.upsert(filter, update);
          return { ...NO_MATCH, upsertedCount: 1, upsertedId: inserted._id };
        }, null);
      }
      // Document by document, not atomic (nor is MongoDB's): a failure leaves earlier ones updated.
      let matchedCount = 0;
      let modifiedCount = 0;
      for (const { _id } of targets) {
        const changed = await w.eachMatching(_id, filter, async (current) => {
          return (await w.update(current, update)) !== current;
        });
        if (changed !== undefined) matchedCount++;
        if (changed) modifiedCount++;
      }
      return { ...NO_MATCH, matchedCount, modifiedCount };
    });
  }

  async replaceOne(
    filter: StoreFilter<T>,
    replacement: Replacement<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertReplacement(replacement);
    return this.writing((w, mark) =>
      w.attempt(async () => {
        const [target] = this.select(filter, { limit: 1 });
        if (target) {
          if (replacement._id !== undefined && replacement._id !== target._id) {
            throw new InvalidArgumentError(
              "_id",
              "is immutable: a replacement must keep the matched document's _id",
            );
          }
          const next = withStringId(replacement, target._id);
          if (encodeDocument(next) === encodeDocument(target)) return { ...NO_MATCH, matchedCount: 1 };
          await w.put(next, this.memory.get(target._id));
          return { ...NO_MATCH, matchedCount: 1, modifiedCount: 1 };
        }
        if (!options.upsert) return NO_MATCH;
        // As in MongoDB, a replacement upsert takes only `_id` from the filter.
        const inserted = await w.insert(withStringId(replacement, pinnedId(filter)));
        return { ...NO_MATCH, upsertedCount: 1, upsertedId: inserted._id };
      }, mark),
    );
  }

  async findOneAndUpdate(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: FindOneAndUpdateOptions = {},
  ): Promise<T | null> {
    assertUpdateOperators(update);
    const returnAfter = options.returnDocument === "after";
    const sort = options.sort ? { sort: options.sort } : {};
    return this.writing((w, mark) =>
      w.attempt(async () => {
        const [target] = this.select(filter, { limit: 1, ...sort });
        let result: StoredDocument | null = null;
        if (target) {
          const after = await w.update(target, update);
          result = returnAfter ? after : target;
        } else if (options.upsert) {
          const inserted = await w.upsert(filter, update);
          result = returnAfter ? inserted : null;
        }
        return result && (project(result, options.projection) as T);
      }, mark),
    );
  }

  async deleteOne(filter: StoreFilter<T>): Promise<DeleteResult> {
    return this.writing((w, mark) =>
      w.attempt(async () => {
        const [target] = this.select(filter, { limit: 1 });
        if (target) await w.remove(target._id);
        return { deletedCount: target ? 1 : 0 };
      }, mark),
    );
  }

  async deleteMany(filter: StoreFilter<T>): Promise<DeleteResult> {
    return this.writing(async (w, mark) => {
      const targets = await w.attempt(() => Promise.resolve(this.select(filter, {})), mark);
      // Document by document, not atomic (nor is MongoDB's): a failure leaves earlier ones deleted.
      let deletedCount = 0;
      for (const { _id } of targets) {
        const deleted = await w.eachMatching(_id, filter, async () => w.remove(_id).then(() => true));
        if (deleted) deletedCount++;
      }
      return { deletedCount };
    });
  }

  async createIndex(keys: IndexKeys, options: CreateIndexOptions = {}): Promise<string> {
    assertIndexKeys(keys);
    const fields = Object.keys(keys);
    if (fields.length === 1 && fields[0] === "_id") return "_id_";
    const name = options.name ?? defaultIndexName(keys);
    const unique = options.unique === true;
    return this.writing((w, mark) =>
      w.attempt(() => Promise.resolve(this.memory.ensureIndex(name, keys, unique)), mark),
    );
  }

  /** Runs `section` under the write mutex, with the collection loaded. */
  private async writing<R>(section: (writer: CollectionWriter, mark: number) => Promise<R>): Promise<R> {
    const writer = await this.ready();
    const mark = writer.mark();
    return this.mutex.run(() => section(writer, mark));
  }

  private ready(): Promise<CollectionWriter> {
    this.assertOpen();
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  /**
   * A collection opened while its bucket's stream has no leader (its node just died, the others elect one in
   * 4-9 s, longer on a loaded machine) or while a node is still joining is opened again (OPENING_ATTEMPTS): opening
   * binds or creates, and a watch that never started holds nothing, so a repeat is harmless.
   */
  private load(): Promise<CollectionWriter> {
    return withAttempts(
      () => this.loadOnce(),
      OPENING_ATTEMPTS,
      (error) => isTransientOpeningFailure(error instanceof MainlineError ? error.cause : error),
    );
  }

  private async loadOnce(): Promise<CollectionWriter> {
    this.memory.clear();
    this.reservations.clear();
    let opened: OpenedBucket;
    try {
      opened = await this.openBucket();
    } catch (error) {
      throw storeErrorOfKv(error, `opening collection ${this.collectionName}`);
    }
    const bucket = new DocumentBucket(opened, this.collectionName);
    this.follower = await bucket.follow(
      (entry) => this.memory.follow(entry),
      (reservation) => this.reservations.follow(reservation),
      () => {
        // Only a closed connection or a deleted bucket ends the feed (the ordered consumer recovers
        // from anything less); memory stays readable, and writes fail on their own.
        this.follower = undefined;
      },
    );
    return new CollectionWriter(this.collectionName, bucket, this.memory, this.reservations);
  }

  /** Stops following the bucket (the store is closing). */
  close(): void {
    this.follower?.stop();
    this.follower = undefined;
  }

  private select(filter: StoreFilter<T>, options: FindOptions): StoredDocument[] {
    return this.memory.select(filter, options);
  }
}
