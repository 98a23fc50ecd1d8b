import { randomUUID } from "node:crypto";
import {
  MongoClient,
  MongoError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Collection as DriverCollection,
  type Db,
  type Document,
  type Filter,
  type MongoClientOptions,
  type UpdateFilter,
} from "mongodb";
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  MainlineError,
  UnavailableError,
} from "../errors/index.js";
import { withStringId } from "./document-ids.js";
import { assertFilter, assertFindOptions, assertIndexKeys } from "./find-options.js";
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
  Replacement,
  Store,
  StoredDocument,
  StoreFilter,
  StoreUpdate,
  UpdateOptions,
  UpdateResult,
} from "./store.js";
import { assertReplacement, assertUpdateOperators, upsertSeed } from "./update-documents.js";

/** MongoDB server error codes with a meaning in the store port. */
const DUPLICATE_KEY = 11000;
const IMMUTABLE_FIELD = 66;
const INDEX_CONFLICTS = new Set([85, 86]);
const BAD_REQUEST = new Set([2, 9, 14, 40, 52]);

/** Turns what the driver threw into the store's typed errors. */
export function storeErrorOfMongo(error: unknown, what: string): unknown {
  if (error instanceof MainlineError || !(error instanceof MongoError)) return error;
  const reason = `${what}: ${error.message}`;
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError
  ) {
    return new UnavailableError(`${what}: MongoDB unavailable (${error.message})`, 1000, { cause: error });
  }
  if (error instanceof MongoInvalidArgumentError) return new InvalidArgumentError(what, error.message);
  if (error instanceof MongoServerError) {
    if (error.code === DUPLICATE_KEY) return new AlreadyExistsError(reason);
    if (error.code === IMMUTABLE_FIELD) return new InvalidArgumentError("_id", "is immutable");
    if (typeof error.code === "number" && INDEX_CONFLICTS.has(error.code))
      return new FailedPreconditionError(reason);
    if (typeof error.code === "number" && BAD_REQUEST.has(error.code))
      return new InvalidArgumentError(what, error.message);
  }
  return new InternalError(reason, { cause: error });
}

/** The port's filters are the driver's, typed over T; the driver collection is untyped. */
function driverFilter(filter: object): Filter<Document> {
  return filter;
}

/** For an upsert, adds a UUID `_id` to the document it may insert, unless the filter pins one. */
function driverUpdate(filter: object, update: object, upsert: boolean): UpdateFilter<Document> {
  const operators = update as UpdateFilter<Document>;
  if (!upsert || upsertSeed(filter)._id !== undefined) return operators;
  return { ...operators, $setOnInsert: { _id: randomUUID(), ...operators.$setOnInsert } };
}

function toUpdateResult(result: {
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
  upsertedId: { toString(): string } | null;
}): UpdateResult {
  const { matchedCount, modifiedCount, upsertedCount, upsertedId } = result;
  return {
    matchedCount,
    modifiedCount,
    upsertedCount,
    upsertedId: upsertedId === null ? null : upsertedId.toString(),
  };
}

/** The MongoDB adapter: a thin layer over the official driver that keeps the port's promises. */
class MongodbCollection<T extends StoredDocument> implements Collection<T> {
  constructor(private readonly driver: DriverCollection) {}

  get collectionName(): string {
    return this.driver.collectionName;
  }

  insertOne(doc: NewDocument<T>): Promise<InsertOneResult> {
    const stored = withStringId(doc);
    return this.guard("insertOne", async () => {
      await this.driver.insertOne(stored as Document);
      return { insertedId: stored._id };
    });
  }

  insertMany(docs: readonly NewDocument<T>[]): Promise<InsertManyResult> {
    const stored = docs.map((doc) => withStringId(doc));
    return this.guard("insertMany", async () => {
      if (stored.length > 0) await this.driver.insertMany(stored as Document[], { ordered: true });
      return { insertedCount: stored.length, insertedIds: stored.map((d) => d._id) };
    });
  }

  findOne(filter: StoreFilter<T>, options: FindOneOptions = {}): Promise<T | null> {
    assertFilter(filter);
    assertFindOptions(options);
    return this.guard(
      "findOne",
      async () => (await this.driver.findOne(driverFilter(filter), options)) as unknown as T | null,
    );
  }

  find(filter: StoreFilter<T>, options: FindOptions = {}): Promise<T[]> {
    assertFilter(filter);
    assertFindOptions(options);
    return this.guard(
      "find",
      async () => (await this.driver.find(driverFilter(filter), options).toArray()) as unknown as T[],
    );
  }

  countDocuments(filter: StoreFilter<T> = {}): Promise<number> {
    assertFilter(filter);
    return this.guard("countDocuments", () => this.driver.countDocuments(driverFilter(filter)));
  }

  updateOne(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertFilter(filter);
    assertUpdateOperators(update);
    const upsert = options.upsert === true;
    const effective = driverUpdate(filter, update, upsert);
    return this.guard("updateOne", async () =>
      toUpdateResult(await this.driver.updateOne(driverFilter(filter), effective, { upsert })),
    );
  }

  updateMany(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertFilter(filter);
    assertUpdateOperators(update);
    const upsert = options.upsert === true;
    const effective = driverUpdate(filter, update, upsert);
    return this.guard("updateMany", async () =>
      toUpdateResult(await this.driver.updateMany(driverFilter(filter), effective, { upsert })),
    );
  }

  replaceOne(
    filter: StoreFilter<T>,
    replacement: Replacement<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    assertFilter(filter);
    assertReplacement(replacement);
    return this.guard("replaceOne", async () => {
      const pinsId = replacement._id !== undefined || upsertSeed(filter)._id !== undefined;
      const result = toUpdateResult(
        await this.driver.replaceOne(driverFilter(filter), replacement, {
          upsert: options.upsert === true && pinsId,
        }),
      );
      if (!options.upsert || pinsId || result.matchedCount > 0) return result;
      // The server would give the new document an ObjectId; insert it with a UUID instead. Not
      // atomic with the replace above: a unique index on the filter's fields closes the race.
      const inserted = withStringId(replacement);
      await this.driver.insertOne(inserted as Document);
      return { ...result, upsertedCount: 1, upsertedId: inserted._id };
    });
  }

  findOneAndUpdate(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: FindOneAndUpdateOptions = {},
  ): Promise<T | null> {
    assertFilter(filter);
    assertUpdateOperators(update);
    const upsert = options.upsert === true;
    const effective = driverUpdate(filter, update, upsert);
    return this.guard(
      "findOneAndUpdate",
      async () =>
        (await this.driver.findOneAndUpdate(driverFilter(filter), effective, {
          upsert,
          returnDocument: options.returnDocument ?? "before",
          ...(options.sort ? { sort: options.sort } : {}),
          ...(options.projection ? { projection: options.projection } : {}),
        })) as unknown as T | null,
    );
  }

  deleteOne(filter: StoreFilter<T>): Promise<DeleteResult> {
    assertFilter(filter);
    return this.guard("deleteOne", async () => ({
      deletedCount: (await this.driver.deleteOne(driverFilter(filter))).deletedCount,
    }));
  }

  deleteMany(filter: StoreFilter<T>): Promise<DeleteResult> {
    assertFilter(filter);
    return this.guard("deleteMany", async () => ({
      deletedCount: (await this.driver.deleteMany(driverFilter(filter))).deletedCount,
    }));
  }

  createIndex(keys: IndexKeys, options: CreateIndexOptions = {}): Promise<string> {
    assertIndexKeys(keys);
    return this.guard("createIndex", () =>
      this.driver.createIndex(
        { ...keys },
        {
          ...(options.unique ? { unique: true } : {}),
          ...(options.name ? { name: options.name } : {}),
        },
      ),
    );
  }

  private async guard<R>(operation: string, run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      throw storeErrorOfMongo(error, `${this.driver.collectionName}.${operation}`);
    }
  }
}

export class MongodbStore implements Store {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  /** Connects (and fails with UnavailableError when the server cannot be reached). */
  static async connect(
    uri: string,
    database: string,
    options: MongoClientOptions = {},
  ): Promise<MongodbStore> {
    if (database === "") throw new InvalidArgumentError("database", "must be a non-empty name");
    let client: MongoClient;
    try {
      client = new MongoClient(uri, options);
    } catch (error) {
      throw new InvalidArgumentError("MONGODB_URI", error instanceof Error ? error.message : String(error));
    }
    try {
      await client.connect();
    } catch (error) {
      await client.close().catch(() => undefined);
      throw storeErrorOfMongo(error, "connecting to MongoDB");
    }
    return new MongodbStore(client, client.db(database));
  }

  collection<T extends StoredDocument>(name: string): Collection<T> {
    if (name === "") throw new InvalidArgumentError("collection", "must be a non-empty name");
    return new MongodbCollection<T>(this.db.collection(name));
  }

  /** Drops the whole database (tests use it to clean up). */
  async dropDatabase(): Promise<void> {
    await this.db.dropDatabase();
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
