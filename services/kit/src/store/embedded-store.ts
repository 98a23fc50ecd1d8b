import type { NatsConnection } from "nats";
import { JETSTREAM_ATTEMPTS } from "../bus/index.js";
import { FailedPreconditionError, InvalidArgumentError } from "../errors/index.js";
import { bucketName } from "./bucket-naming.js";
import type { OpenedBucket } from "./document-bucket.js";
import { EmbeddedCollection } from "./embedded-collection.js";
import type { Collection, Store, StoredDocument } from "./store.js";

export interface EmbeddedStoreOptions {
  /** Owned by the caller: closing the store leaves it open. */
  nats: NatsConnection;
  /** Prefixes every bucket name, so two services on one NATS never share a collection. */
  database: string;
  /**
   * JetStream replicas for each bucket: 1 (the default) on a single server, 3 on a three-node
   * cluster. A bucket found with fewer is raised to this many.
   */
  replicas?: number | undefined;
  /** Hears what the store changed on its own (a bucket's replicas raised), for the service's log. */
  log?: ((message: string, fields: Record<string, unknown>) => void) | undefined;
  /**
   * How old a unique-key reservation whose holder does not hold the key must be before another
   * write reclaims it (see UniqueReservations); 5 s by default.
   */
  reservationGraceMs?: number | undefined;
}

const DEFAULT_RESERVATION_GRACE_MS = 5_000;

/**
 * Before this release a replicated stream checked a compare-and-set before proposing the write
 * to its Raft group only, so two writes on the same revision in flight at once could both be
 * accepted (nats-server issue 4320): every rule of this store rests on that check.
 */
const SERIALISED_CAS_SINCE = [2, 9, 21];

function versionBefore(version: string, since: readonly number[]): boolean {
  const parts = version.split(/[.-]/).map((p) => Number.parseInt(p, 10));
  for (let i = 0; i < since.length; i++) {
    const part = parts[i] ?? 0;
    const wanted = since[i] ?? 0;
    if (Number.isNaN(part) || part !== wanted) return !Number.isNaN(part) && part < wanted;
  }
  return false;
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
    const version = options.nats.info?.version;
    if (
      (options.replicas ?? 1) > 1 &&
      version !== undefined &&
      versionBefore(version, SERIALISED_CAS_SINCE)
    ) {
      options.log?.("this nats-server does not serialise compare-and-set on replicated buckets", {
        version,
        needed: SERIALISED_CAS_SINCE.join("."),
        effect: "two writes racing on one document can both land",
      });
    }
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
        this.options.reservationGraceMs ?? DEFAULT_RESERVATION_GRACE_MS,
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

  private async openBucket(name: string): Promise<OpenedBucket> {
    const replicas = this.options.replicas ?? 1;
    const js = this.options.nats.jetstream();
    const kv = await js.views.kv(name, { history: 1, replicas });
    await this.raiseReplicas(name, replicas);
    const short = { timeout: JETSTREAM_ATTEMPTS.attemptMs, checkAPI: false };
    const jsm = await this.options.nats.jetstreamManager(short);
    const resumeKv = await this.options.nats.jetstream(short).views.kv(name, { bindOnly: true });
    return { kv, js, jsm, resumeKv, name };
  }

  /** An existing bucket keeps the replicas it was created with; raise them (never lower) to the configured count. */
  private async raiseReplicas(bucket: string, replicas: number): Promise<void> {
    const jsm = await this.options.nats.jetstreamManager();
    const stream = `KV_${bucket}`;
    const { config } = await jsm.streams.info(stream);
    if (config.num_replicas >= replicas) return;
    await jsm.streams.update(stream, { ...config, num_replicas: replicas });
    this.options.log?.("raised the replicas of a store bucket", {
      bucket,
      from: config.num_replicas,
      to: replicas,
    });
  }

  private assertOpen(): void {
    if (this.closed) throw new FailedPreconditionError("the store is closed");
  }
}
