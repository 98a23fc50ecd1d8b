import type { NatsConnection } from "nats";
import { InvalidArgumentError } from "../errors/index.js";
import { EmbeddedStore } from "./embedded-store.js";
import { MongodbStore } from "./mongodb-store.js";
import type { Store } from "./store.js";

export interface OpenStoreOptions {
  /** The service's database: the MongoDB database, or the prefix of the embedded store's buckets. */
  database: string;
  /** Use MongoDB when set (MONGODB_URI); the embedded store otherwise. */
  mongodbUri?: string | undefined;
  /** Required by the embedded store; left open by store.close(). */
  nats?: NatsConnection | undefined;
  /** The embedded store's JetStream replicas per bucket (NATS_REPLICAS); 1 by default. */
  replicas?: number | undefined;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.mongodbUri) return MongodbStore.connect(options.mongodbUri, options.database);
  if (options.nats === undefined) {
    throw new InvalidArgumentError(
      "nats",
      "the embedded store needs a NATS connection when no MongoDB URI is set",
    );
  }
  return new EmbeddedStore({ nats: options.nats, database: options.database, replicas: options.replicas });
}
