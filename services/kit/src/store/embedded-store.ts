import type { KV, NatsConnection } from "nats";
import { FailedPreconditionError, InvalidArgumentError } from "../errors/index.js";
import { bucketName } from "./bucket-naming.js";
import { EmbeddedCollection } from "./embedded-collection.js";
import type { Collection, Store, StoredDocument } from "./store.js";

export interface EmbeddedStoreOptions {
  /** Owned by the caller: closing the store leaves it open. */
  nats: NatsConnection;
  /** Prefixes every bucket name, so two services on one NATS never share a collection. */
  database: string;
  /** JetStream replicas for each bucket (1 on a single server). */
  replicas?: number;
}

/**
 * The embedded adapter: documents live in this process, every acknowledged write is durable in
 * JetStream (one key-value bucket per collection, see EmbeddedCollection), and a collection
 * reloads its bucket the first time it is used. It needs no server beyond NATS.
 */
export class EmbeddedStore implements Store {
  private readonly collections = new Map<string, EmbeddedCollection<StoredDocument>>();
  private closed = false;

  constructor(private readonly options: EmbeddedStoreOptions) {
    if (options.database === "") throw new InvalidArgumentError("database", "must be a non-empty name");
  }

  collection<T extends StoredDocument>(name: string): Collection<T> {
    if (name === "") throw new InvalidArgumentError("collection", "must be a non-empty name");
    let collection = this.collections.get(name);
    if (collection === undefined) {
      const bucket = bucketName(this.options.database, name);
      collection = new EmbeddedCollection(
        name,
        () => this.openBucket(bucket),
        () => this.assertOpen(),
      );
      this.collections.set(name, collection);
    }
    return collection as unknown as Collection<T>;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.collections.values()].map((c) => c.idle()));
    for (const collection of this.collections.values()) collection.close();
  }

  private openBucket(bucket: string): Promise<KV> {
    return this.options.nats
      .jetstream()
      .views.kv(bucket, { history: 1, replicas: this.options.replicas ?? 1 });
  }

  private assertOpen(): void {
    if (this.closed) throw new FailedPreconditionError("the store is closed");
  }
}
