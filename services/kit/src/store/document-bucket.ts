import type { KV } from "nats";
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

  /** The last entry of every key, up to the bucket's last revision when the call started. */
  async *entries(): AsyncGenerator<BucketEntry> {
    try {
      const status = await this.kv.status();
      if (status.values === 0) return;
      const lastRevision = status.streamInfo.state.last_seq;
      for await (const entry of await this.kv.watch()) {
        const doc = entry.operation === "PUT" ? decodeDocument<StoredDocument>(entry.string()) : null;
        yield { id: idOfKey(entry.key), doc, revision: entry.revision };
        // Entries arrive in revision order, so nothing older than this one is still to come.
        if (entry.revision >= lastRevision) return;
      }
    } catch (error) {
      throw storeErrorOfKv(error, `loading collection ${this.collectionName}`);
    }
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
