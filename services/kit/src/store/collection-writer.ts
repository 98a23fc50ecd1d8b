import { AlreadyExistsError, ConflictError, InvalidArgumentError } from "../errors/index.js";
import type { CollectionMemory, StoredRecord } from "./collection-memory.js";
import type { DocumentBucket } from "./document-bucket.js";
import { decodeDocument, encodeDocument } from "./document-codec.js";
import { withStringId } from "./document-ids.js";
import type { StoredDocument } from "./store.js";
import type { UniqueReservations } from "./unique-reservations.js";
import { applyUpdate, upsertSeed } from "./update-documents.js";

/** Attempts of one operation before its ConflictError reaches the caller (who may retry it later). */
const MAX_ATTEMPTS = 30;

function backoff(attempt: number): Promise<void> {
  const ceilingMs = Math.min(50, 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceilingMs));
}

/**
 * The writes of one embedded collection, one document at a time, each decided on memory brought
 * up to the bucket by a read barrier and written compare-and-set on the revision it was decided
 * on: so no decision rests on a stale read, and of two processes deciding on the same revision
 * one wins and the other decides again on the winner's write (a retry re-runs the query, as
 * MongoDB does after a write conflict, so concurrent `$inc` from two processes both count and two
 * claims of one document leave one claimer). The caller holds the collection's write mutex.
 */
export class CollectionWriter {
  constructor(
    private readonly collectionName: string,
    private readonly bucket: DocumentBucket,
    private readonly memory: CollectionMemory,
    private readonly reservations: UniqueReservations,
  ) {}

  /** See DocumentBucket.mark: taken when an operation is called, before it waits for the write mutex. */
  mark(): number {
    return this.bucket.mark();
  }

  /** The read barrier alone (see DocumentBucket.barrier): memory then shows every write acknowledged before it. */
  catchUp(): Promise<void> {
    return this.bucket.barrier();
  }

  /**
   * Runs `decide` after a read barrier sent after `mark`, again after each lost compare-and-set
   * (after a fresh barrier). A `mark` of null skips the first barrier where the caller just passed
   * one and what `decide` relies on is checked by the write's own compare-and-set (the next
   * documents of a multi-document write).
   */
  async attempt<R>(decide: () => Promise<R>, mark: number | null): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) await this.bucket.barrier();
      else if (mark !== null) await this.bucket.barrier(mark);
      try {
        return await decide();
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= MAX_ATTEMPTS) throw error;
        await backoff(attempt);
      }
    }
  }

  /**
   * Applies `write` to the document `id` while it still matches `filter`, deciding again on a
   * lost compare-and-set; undefined once it no longer matches (a multi-document write goes on
   * with the next one instead of re-running the query, which would write some documents twice).
   */
  async eachMatching<R>(
    id: string,
    filter: object,
    write: (current: StoredDocument) => Promise<R>,
  ): Promise<R | undefined> {
    // Memory passed a barrier when the targets were chosen; the write compares against this document's revision.
    return this.attempt(async () => {
      const current = this.memory.matching(id, filter);
      return current === undefined ? undefined : write(current.doc);
    }, null);
  }

  async insert(doc: StoredDocument): Promise<StoredDocument> {
    if (this.memory.get(doc._id)) {
      throw new AlreadyExistsError(`${this.collectionName}: a document with _id ${doc._id} already exists`);
    }
    return this.put(doc, undefined);
  }

  /** Returns the document as stored now: `target` itself when the update changed nothing. */
  async update(target: StoredDocument, update: object): Promise<StoredDocument> {
    const { next, changed } = applyUpdate(
      target as unknown as Record<string, unknown>,
      update as Record<string, unknown>,
      false,
    );
    if (!changed) return target;
    if (next._id !== target._id) throw new InvalidArgumentError("_id", "is immutable");
    return this.put(withStringId(next), this.memory.get(target._id));
  }

  async upsert(filter: object, update: object): Promise<StoredDocument> {
    const { next } = applyUpdate(upsertSeed(filter), update as Record<string, unknown>, true);
    return this.insert(withStringId(next));
  }

  /**
   * Writes `doc` to the bucket (create when `previous` is absent), then to memory: unique values
   * reserved first, the ones it left released after (see UniqueReservations).
   */
  async put(doc: StoredDocument, previous: StoredRecord | undefined): Promise<StoredDocument> {
    const text = encodeDocument(doc);
    const stored = decodeDocument<StoredDocument>(text);
    // Memory is as new as the barrier: this refuses a value a document already holds without a round trip.
    this.memory.assertUniqueKeys(stored);
    const unique = this.memory.uniqueIndexes();
    const holderOf = (id: string) => this.memory.get(id)?.doc;
    const reserved = await this.reservations.acquire(this.bucket, unique, holderOf, stored, previous?.doc);
    let revision: number;
    try {
      revision = await this.bucket.write(stored._id, text, previous?.revision);
    } catch (error) {
      // Only a refused write surely left nothing behind; after any other failure it may have landed.
      if (error instanceof ConflictError) await this.reservations.undo(this.bucket, reserved);
      throw error;
    }
    this.memory.remember(stored, revision);
    if (previous) await this.reservations.releaseLeft(this.bucket, unique, previous.doc, stored);
    return stored;
  }

  async remove(id: string): Promise<void> {
    const previous = this.memory.get(id);
    if (previous === undefined) return;
    await this.bucket.delete(id, previous.revision);
    this.memory.deleted(id, previous.revision);
    await this.reservations.releaseLeft(this.bucket, this.memory.uniqueIndexes(), previous.doc, null);
  }
}
