import type { Filter, UpdateFilter } from "mongodb";

/**
 * The store port: a small collection interface in the shape of the official `mongodb` driver,
 * so repository code reads like driver code and never knows which adapter it has.
 *
 * Every document has a string `_id`; insertOne (and an upsert) assigns a random UUID when it is
 * absent, in both adapters, so repository code only ever sees strings.
 *
 * Errors: a unique-index violation (including a duplicate `_id`) is an AlreadyExistsError; a
 * malformed filter, update or option is an InvalidArgumentError; an unreachable backend is an
 * UnavailableError. Both adapters decide every write on current data and retry it when another
 * process wrote the same document first (MongoDB's write-conflict retry; the embedded adapter's
 * compare-and-set, see EmbeddedCollection); the embedded adapter raises ConflictError (retryable)
 * only when that keeps happening, or while another process's write of the same unique key is on
 * its way.
 */
export interface StoredDocument {
  _id: string;
}

/** A MongoDB query document (`{ status: { $in: ["open", "held"] }, "owner.name": "ada" }`). */
export type StoreFilter<T extends StoredDocument> = Filter<T>;

/** A MongoDB update document made of update operators (`{ $set: {...}, $inc: {...} }`). */
export type StoreUpdate<T extends StoredDocument> = UpdateFilter<T>;

/** A document to insert: `_id` may be left out. */
export type NewDocument<T extends StoredDocument> = Omit<T, "_id"> & { _id?: string };

/** A replacement document: `_id` may be left out; when present it must equal the matched one. */
export type Replacement<T extends StoredDocument> = Omit<T, "_id"> & { _id?: string };

/** Field paths to sort by, in order of precedence: 1 ascending, -1 descending. */
export type SortSpec = Readonly<Record<string, 1 | -1>>;

/**
 * Fields to include (1) or exclude (0). With a projection the returned objects hold only part of
 * `T`; as with the driver, the static type does not narrow.
 */
export type ProjectionSpec = Readonly<Record<string, 0 | 1 | boolean>>;

/** Index key pattern: field paths with their direction. */
export type IndexKeys = Readonly<Record<string, 1 | -1>>;

export interface FindOptions {
  sort?: SortSpec;
  /** At most this many documents; 0 or absent means no limit. */
  limit?: number;
  skip?: number;
  projection?: ProjectionSpec;
}

export type FindOneOptions = Omit<FindOptions, "limit">;

export interface UpdateOptions {
  /** Insert a document built from the filter's equality fields and the update when none matches. */
  upsert?: boolean;
}

export interface FindOneAndUpdateOptions extends UpdateOptions {
  sort?: SortSpec;
  projection?: ProjectionSpec;
  /** Which version of the document to return; "before" by default, like the driver. */
  returnDocument?: "before" | "after";
}

export interface CreateIndexOptions {
  unique?: boolean;
  /** Defaults to the driver's naming: `field_1_other_-1`. */
  name?: string;
}

export interface InsertOneResult {
  insertedId: string;
}

export interface InsertManyResult {
  insertedCount: number;
  /** The `_id` of each inserted document, in input order. */
  insertedIds: string[];
}

export interface UpdateResult {
  matchedCount: number;
  /** Documents actually changed: an update that leaves a document as it was does not count. */
  modifiedCount: number;
  upsertedCount: number;
  upsertedId: string | null;
}

export interface DeleteResult {
  deletedCount: number;
}

export interface Collection<T extends StoredDocument> {
  readonly collectionName: string;
  insertOne(doc: NewDocument<T>): Promise<InsertOneResult>;
  /** Ordered: stops at the first failing document; the ones before it stay inserted. */
  insertMany(docs: readonly NewDocument<T>[]): Promise<InsertManyResult>;
  findOne(filter: StoreFilter<T>, options?: FindOneOptions): Promise<T | null>;
  find(filter: StoreFilter<T>, options?: FindOptions): Promise<T[]>;
  countDocuments(filter?: StoreFilter<T>): Promise<number>;
  updateOne(filter: StoreFilter<T>, update: StoreUpdate<T>, options?: UpdateOptions): Promise<UpdateResult>;
  /** Not atomic across documents (neither is MongoDB's): a failure leaves earlier documents updated. */
  updateMany(filter: StoreFilter<T>, update: StoreUpdate<T>, options?: UpdateOptions): Promise<UpdateResult>;
  replaceOne(
    filter: StoreFilter<T>,
    replacement: Replacement<T>,
    options?: UpdateOptions,
  ): Promise<UpdateResult>;
  /** Returns null when nothing matched (or, with an upsert and returnDocument "before", when it inserted). */
  findOneAndUpdate(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options?: FindOneAndUpdateOptions,
  ): Promise<T | null>;
  deleteOne(filter: StoreFilter<T>): Promise<DeleteResult>;
  /** Not atomic across documents (neither is MongoDB's). */
  deleteMany(filter: StoreFilter<T>): Promise<DeleteResult>;
  /** Idempotent for the same keys and options; returns the index name. */
  createIndex(keys: IndexKeys, options?: CreateIndexOptions): Promise<string>;
}

export interface Store {
  /** The same name always yields a collection over the same data. */
  collection<T extends StoredDocument>(name: string): Collection<T>;
  /** Waits for writes in flight, then releases what the store owns. */
  close(): Promise<void>;
}
