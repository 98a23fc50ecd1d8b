import type { KV, KvEntry } from "nats";
import { idOfKey, keyOfId } from "./bucket-naming.js";
import { decodeDocument } from "./document-codec.js";
import { storeErrorOfKv } from "./kv-errors.js";
import type { StoredDocument } from "./store.js";

/** One document as the bucket holds it: null when its last entry is a delete marker. */
export interface BucketEntry {
  id: string;
  doc: StoredDocument | null;
  revision: number;
}

/** A followed entry: its document is decoded only if the follower needs it (most echoes are skipped). */
export interface FollowedEntry {
  id: string;
  revision: number;
  doc: () => StoredDocument | null;
}

export interface BucketFollower {
  stop(): void;
}

function lazyDocument(entry: KvEntry): () => StoredDocument | null {
  return () => (entry.operation === "PUT" ? decodeDocument<StoredDocument>(entry.string()) : null);
}

/**
 * The durable side of an embedded collection: one key-value entry per document, keyed by its
 * `_id`, every write compare-and-set on the revision the caller last saw. Failures come out as
 * the store's typed errors (ConflictError when the revision moved).
 */
export class DocumentBucket {
  constructor(
    private readonly kv: KV,
    private readonly collectionName: string,
  ) {}

  /**
   * Hands `apply` the last entry of every key, resolves once it reached the bucket's last revision
   * when the call started, then keeps handing it every later entry (this process's writes and other
   * processes') until `stop()`; `onEnd` hears when the feed ends for any other reason.
   */
  async follow(
    apply: (entry: FollowedEntry) => void,
    onEnd: (error?: unknown) => void,
  ): Promise<BucketFollower> {
    let watcher: Awaited<ReturnType<KV["watch"]>>;
    let lastRevision: number;
    try {
      const status = await this.kv.status();
      lastRevision = status.values === 0 ? 0 : status.streamInfo.state.last_seq;
      watcher = await this.kv.watch();
    } catch (error) {
      throw storeErrorOfKv(error, `loading collection ${this.collectionName}`);
    }
    let stopped = false;
    let caughtUp: () => void = () => undefined;
    let failed: (error: unknown) => void = () => undefined;
    const initial = new Promise<void>((resolve, reject) => {
      caughtUp = resolve;
      failed = reject;
    });
    if (lastRevision === 0) caughtUp();
    void (async () => {
      try {
        for await (const entry of watcher) {
          const id = this.idOf(entry);
          // A delete of a digest key never seen written held nothing here: there is nothing to forget.
          if (id !== undefined) apply({ id, revision: entry.revision, doc: lazyDocument(entry) });
          // Entries arrive in revision order, so nothing older than this one is still to come.
          if (entry.revision >= lastRevision) caughtUp();
        }
        if (!stopped) onEnd();
      } catch (error) {
        failed(storeErrorOfKv(error, `loading collection ${this.collectionName}`));
        if (!stopped) onEnd(error);
      }
    })();
    await initial;
    return {
      stop: () => {
        stopped = true;
        watcher.stop();
      },
    };
  }

  /** Ids of digest keys (see keyOfId), learnt from their documents, so a later delete can be named. */
  private readonly digestIds = new Map<string, string>();

  private idOf(entry: KvEntry): string | undefined {
    const plain = idOfKey(entry.key);
    if (plain !== undefined) return plain;
    if (entry.operation === "PUT") {
      const id = decodeDocument<StoredDocument>(entry.string())._id;
      this.digestIds.set(entry.key, id);
      return id;
    }
    return this.digestIds.get(entry.key);
  }

  async read(id: string): Promise<BucketEntry | null> {
    try {
      const entry = await this.kv.get(keyOfId(id));
      if (entry === null) return null;
      const doc = entry.operation === "PUT" ? decodeDocument<StoredDocument>(entry.string()) : null;
      return { id, doc, revision: entry.revision };
    } catch (error) {
      throw storeErrorOfKv(error, `reading ${this.collectionName}/${id}`);
    }
  }

  /** Creates the entry when `previousRevision` is undefined; returns the new revision. */
  async write(id: string, encoded: string, previousRevision: number | undefined): Promise<number> {
    const key = keyOfId(id);
    try {
      return previousRevision === undefined
        ? await this.kv.create(key, encoded)
        : await this.kv.update(key, encoded, previousRevision);
    } catch (error) {
      throw storeErrorOfKv(error, `writing ${this.collectionName}/${id}`);
    }
  }

  async delete(id: string, previousRevision: number): Promise<void> {
    try {
      await this.kv.delete(keyOfId(id), { previousSeq: previousRevision });
    } catch (error) {
      throw storeErrorOfKv(error, `deleting ${this.collectionName}/${id}`);
    }
  }
}
