import { Query } from "mingo";
import type { KV } from "nats";
import { AlreadyExistsError, ConflictError, InvalidArgumentError } from "../errors/index.js";
import { CollectionMemory, type StoredRecord } from "./collection-memory.js";
import { DocumentBucket, type BucketFollower } from "./document-bucket.js";
import { decodeDocument, encodeDocument } from "./document-codec.js";
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
import { applyUpdate, assertReplacement, assertUpdateOperators, upsertSeed } from "./update-documents.js";
import { WriteMutex } from "./write-mutex.js";

const NO_MATCH: UpdateResult = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null };

function project(doc: StoredDocument, projection: ProjectionSpec | undefined): StoredDocument {
  if (projection === undefined || Object.keys(projection).length === 0) return structuredClone(doc);
  const [projected] = new Query({}).find<StoredDocument>([doc], projection).all();
  return structuredClone(projected ?? doc);
}

/**
 * A collection held in process and made durable in one JetStream key-value bucket: one entry per
 * document, keyed by its `_id`. Every write goes to the bucket first, compare-and-set on the
 * revision this process last saw, and reaches memory only once the bucket acknowledged it; so a
 * failed write leaves memory as it was, and memory never holds what a reload would not bring back.
 *
 * Writes are serialised by a mutex; reads run on the in-memory state without waiting.
 * Indexes are declared by the code that opens the collection (createIndex on start); they are not
 * stored in the bucket. Unique indexes are enforced by this process only: two processes inserting
 * different documents with the same unique key are not detected (DESIGN's rule one: one writer per
 * aggregate). Two processes writing the same document are: the later one gets a ConflictError.
 */
export class EmbeddedCollection<T extends StoredDocument> implements Collection<T> {
  private readonly memory: CollectionMemory;
  private readonly mutex = new WriteMutex();
  private loading: Promise<DocumentBucket> | undefined;
  private follower: BucketFollower | undefined;

  constructor(
    readonly collectionName: string,
    private readonly openBucket: () => Promise<KV>,
    private readonly assertOpen: () => void,
  ) {
    this.memory = new CollectionMemory(collectionName);
  }

  /** Resolves once every write queued so far has finished. */
  idle(): Promise<void> {
    return this.mutex.idle();
  }

  async insertOne(doc: NewDocument<T>): Promise<InsertOneResult> {
    const stored = withStringId(doc);
    const bucket = await this.ready();
    return this.mutex.run(async () => ({ insertedId: (await this.insert(bucket, stored))._id }));
  }

  async insertMany(docs: readonly NewDocument<T>[]): Promise<InsertManyResult> {
    const prepared = docs.map((doc) => withStringId(doc));
    const bucket = await this.ready();
    return this.mutex.run(async () => {
      const insertedIds: string[] = [];
      for (const doc of prepared) insertedIds.push((await this.insert(bucket, doc))._id);
      return { insertedCount: insertedIds.length, insertedIds };
    });
  }

  async findOne(filter: StoreFilter<T>, options: FindOneOptions = {}): Promise<T | null> {
    const [found] = await this.find(filter, { ...options, limit: 1 });
    return found ?? null;
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
    const bucket = await this.ready();
    return this.mutex.run(async () => {
      const [target] = this.select(filter, { limit: 1 });
      if (target) {
        const after = await this.update(bucket, target, update);
        return { ...NO_MATCH, matchedCount: 1, modifiedCount: after === target ? 0 : 1 };
      }
      if (!options.upsert) return NO_MATCH;
      const inserted = await this.upsert(bucket, filter, update);
      return { ...NO_MATCH, upsertedCount: 1, upsertedId: inserted._id };
    });
  }

  async updateMany(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertUpdateOperators(update);
    const bucket = await this.ready();
    return this.mutex.run(async () => {
      const targets = this.select(filter, {});
      if (targets.length === 0 && options.upsert) {
        const inserted = await this.upsert(bucket, filter, update);
        return { ...NO_MATCH, upsertedCount: 1, upsertedId: inserted._id };
      }
      // Document by document, not atomic (nor is MongoDB's): a failure leaves earlier ones updated.
      let modifiedCount = 0;
      for (const target of targets)
        if ((await this.update(bucket, target, update)) !== target) modifiedCount++;
      return { ...NO_MATCH, matchedCount: targets.length, modifiedCount };
    });
  }

  async replaceOne(
    filter: StoreFilter<T>,
    replacement: Replacement<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertReplacement(replacement);
    const bucket = await this.ready();
    return this.mutex.run(async () => {
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
        await this.put(bucket, next, this.memory.get(target._id));
        return { ...NO_MATCH, matchedCount: 1, modifiedCount: 1 };
      }
      if (!options.upsert) return NO_MATCH;
      // As in MongoDB, a replacement upsert takes only `_id` from the filter.
      const inserted = await this.insert(bucket, withStringId(replacement, pinnedId(filter)));
      return { ...NO_MATCH, upsertedCount: 1, upsertedId: inserted._id };
    });
  }

  async findOneAndUpdate(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: FindOneAndUpdateOptions = {},
  ): Promise<T | null> {
    assertUpdateOperators(update);
    const bucket = await this.ready();
    const returnAfter = options.returnDocument === "after";
    return this.mutex.run(async () => {
      const [target] = this.select(filter, { limit: 1, ...(options.sort ? { sort: options.sort } : {}) });
      let result: StoredDocument | null = null;
      if (target) {
        const after = await this.update(bucket, target, update);
        result = returnAfter ? after : target;
      } else if (options.upsert) {
        const inserted = await this.upsert(bucket, filter, update);
        result = returnAfter ? inserted : null;
      }
      return result && (project(result, options.projection) as T);
    });
  }

  async deleteOne(filter: StoreFilter<T>): Promise<DeleteResult> {
    const bucket = await this.ready();
    return this.mutex.run(async () => {
      const [target] = this.select(filter, { limit: 1 });
      if (target) await this.remove(bucket, target._id);
      return { deletedCount: target ? 1 : 0 };
    });
  }

  async deleteMany(filter: StoreFilter<T>): Promise<DeleteResult> {
    const bucket = await this.ready();
    return this.mutex.run(async () => {
      const targets = this.select(filter, {});
      // Document by document, not atomic (nor is MongoDB's): a failure leaves earlier ones deleted.
      for (const target of targets) await this.remove(bucket, target._id);
      return { deletedCount: targets.length };
    });
  }

  async createIndex(keys: IndexKeys, options: CreateIndexOptions = {}): Promise<string> {
    assertIndexKeys(keys);
    const fields = Object.keys(keys);
    if (fields.length === 1 && fields[0] === "_id") return "_id_";
    const name = options.name ?? defaultIndexName(keys);
    const unique = options.unique === true;
    await this.ready();
    return this.mutex.run(() => Promise.resolve(this.memory.ensureIndex(name, keys, unique)));
  }

  private ready(): Promise<DocumentBucket> {
    this.assertOpen();
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  private async load(): Promise<DocumentBucket> {
    this.memory.clear();
    let kv: KV;
    try {
      kv = await this.openBucket();
    } catch (error) {
      throw storeErrorOfKv(error, `opening collection ${this.collectionName}`);
    }
    const bucket = new DocumentBucket(kv, this.collectionName);
    this.follower = await bucket.follow(
      (entry) => this.memory.follow(entry),
      () => {
        // Only a closed connection or a deleted bucket ends the feed (the ordered consumer recovers
        // from anything less); memory stays readable, and writes fail on their own.
        this.follower = undefined;
      },
    );
    return bucket;
  }

  /** Stops following the bucket (the store is closing). */
  close(): void {
    this.follower?.stop();
    this.follower = undefined;
  }

  private select(filter: StoreFilter<T>, options: FindOptions): StoredDocument[] {
    return this.memory.select(filter, options);
  }

  /** Returns the document as stored now: `target` itself when the update changed nothing. */
  private async update(
    bucket: DocumentBucket,
    target: StoredDocument,
    update: object,
  ): Promise<StoredDocument> {
    const { next, changed } = applyUpdate(
      target as unknown as Record<string, unknown>,
      update as Record<string, unknown>,
      false,
    );
    if (!changed) return target;
    if (next._id !== target._id) throw new InvalidArgumentError("_id", "is immutable");
    return this.put(bucket, withStringId(next), this.memory.get(target._id));
  }

  private async upsert(bucket: DocumentBucket, filter: object, update: object): Promise<StoredDocument> {
    const { next } = applyUpdate(upsertSeed(filter), update as Record<string, unknown>, true);
    return this.insert(bucket, withStringId(next));
  }

  private async insert(bucket: DocumentBucket, doc: StoredDocument): Promise<StoredDocument> {
    if (this.memory.get(doc._id)) {
      throw new AlreadyExistsError(`${this.collectionName}: a document with _id ${doc._id} already exists`);
    }
    return this.put(bucket, doc, undefined);
  }

  /** Writes `doc` to the bucket (create when `previous` is absent), then to memory. */
  private async put(
    bucket: DocumentBucket,
    doc: StoredDocument,
    previous: StoredRecord | undefined,
  ): Promise<StoredDocument> {
    const text = encodeDocument(doc);
    const stored = decodeDocument<StoredDocument>(text);
    this.memory.assertUniqueKeys(stored);
    let revision: number;
    try {
      revision = await bucket.write(stored._id, text, previous?.revision);
    } catch (error) {
      throw await this.afterFailedWrite(bucket, stored._id, error);
    }
    this.memory.remember(stored, revision);
    return stored;
  }

  private async remove(bucket: DocumentBucket, id: string): Promise<void> {
    const previous = this.memory.get(id);
    if (previous === undefined) return;
    try {
      await bucket.delete(id, previous.revision);
    } catch (error) {
      throw await this.afterFailedWrite(bucket, id, error);
    }
    this.memory.deleted(id, previous.revision);
  }

  /**
   * After a lost compare-and-set the failed write is not applied, but the document is re-read
   * from the bucket, so that a caller who retries (ConflictError is retryable) works on the
   * other writer's version instead of conflicting forever.
   */
  private async afterFailedWrite(bucket: DocumentBucket, id: string, error: unknown): Promise<unknown> {
    if (error instanceof ConflictError) {
      try {
        const entry = await bucket.read(id);
        if (entry?.doc) this.memory.remember(entry.doc, entry.revision);
        else this.memory.forget(id);
      } catch {
        // The next write will conflict again and retry the refresh.
      }
    }
    return error;
  }
}
