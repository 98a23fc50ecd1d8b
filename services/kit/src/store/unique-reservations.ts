import { AlreadyExistsError, ConflictError, MainlineError } from "../errors/index.js";
import { reservationKey } from "./bucket-naming.js";
import type { CollectionIndex } from "./collection-index.js";
import type { DocumentBucket, FollowedReservation } from "./document-bucket.js";
import { encodeDocument } from "./document-codec.js";
import type { StoredDocument } from "./store.js";

interface Reservation {
  holder: string;
  revision: number;
  created: number;
}

/** A reservation this write made, undone if the write fails. */
export interface Reserved {
  key: string;
  revision: number;
}

/**
 * Unique indexes held in the bucket itself, so they hold across processes. Every value a unique
 * index holds has a reservation entry in the collection's bucket (key: a digest of index and
 * value, see reservationKey; value: the `_id` of the holder), created compare-and-set before the
 * document is written, so of two processes writing the same value only one creates it. A
 * reservation moves with the document (released after an update leaves the value, or a delete).
 *
 * A process that dies between reservation and document write, or between write and release,
 * leaves a reservation whose holder does not hold the value. Younger than the grace period it may
 * be a write still on its way: a ConflictError (retryable; usually the holder's document appears
 * meanwhile). Older, it is reclaimed: the holder's document is first rewritten at the revision
 * it is found at (or a delete marker written if it is absent), so that a write of the holder
 * still on its way, compare-and-set on an older revision, fails; then the reservation is taken
 * over, compare-and-set on its own revision. Correctness rests on those two compare-and-sets,
 * never on clocks: the grace period only keeps two live writers from taking turns reclaiming.
 *
 * This map mirrors the bucket's reservations through the feed; it is read only after a read
 * barrier, and reservation entries never reach the collection's documents (find, count).
 */
export class UniqueReservations {
  private readonly held = new Map<string, Reservation>();

  constructor(
    private readonly collectionName: string,
    private readonly graceMs: number,
  ) {}

  clear(): void {
    this.held.clear();
  }

  follow(entry: FollowedReservation): void {
    if ((this.held.get(entry.key)?.revision ?? 0) >= entry.revision) return;
    if (entry.holder === null) this.held.delete(entry.key);
    else this.held.set(entry.key, { holder: entry.holder, revision: entry.revision, created: entry.created });
  }

  /**
   * Reserves every unique value `next` holds that `previous` (the same document before this
   * write) did not. Throws AlreadyExistsError when a document holds one, ConflictError when a
   * concurrent write is taking one; either way what this call reserved is released first.
   */
  async acquire(
    bucket: DocumentBucket,
    indexes: readonly CollectionIndex[],
    holderOf: (id: string) => StoredDocument | undefined,
    next: StoredDocument,
    previous: StoredDocument | undefined,
  ): Promise<Reserved[]> {
    const reserved: Reserved[] = [];
    try {
      for (const index of indexes) {
        const value = index.fullKey(next);
        if (previous !== undefined && index.fullKey(previous) === value) continue;
        const key = reservationKey(index.name, value);
        const revision = await this.reserveOne(bucket, index, key, next._id, holderOf);
        if (revision !== undefined) reserved.push({ key, revision });
      }
    } catch (error) {
      await this.undo(bucket, reserved);
      throw error;
    }
    return reserved;
  }

  /** Best effort: a reservation left behind is reclaimable (its holder does not hold the value). */
  async undo(bucket: DocumentBucket, reserved: readonly Reserved[]): Promise<void> {
    for (const { key, revision } of reserved) await bucket.release(key, revision).catch(() => undefined);
  }

  /** After `previous` became `next` (null: deleted), releases the values it no longer holds. */
  async releaseLeft(
    bucket: DocumentBucket,
    indexes: readonly CollectionIndex[],
    previous: StoredDocument,
    next: StoredDocument | null,
  ): Promise<void> {
    for (const index of indexes) {
      const value = index.fullKey(previous);
      if (next !== null && index.fullKey(next) === value) continue;
      const key = reservationKey(index.name, value);
      const held = this.held.get(key);
      if (held?.holder !== previous._id) continue;
      await bucket.release(key, held.revision).catch(() => undefined);
    }
  }

  /** Returns the new reservation's revision, or undefined when `id` already holds it. */
  private async reserveOne(
    bucket: DocumentBucket,
    index: CollectionIndex,
    key: string,
    id: string,
    holderOf: (id: string) => StoredDocument | undefined,
  ): Promise<number | undefined> {
    const held = this.held.get(key);
    if (held === undefined) return bucket.reserve(key, id, undefined);
    if (held.holder === id) return undefined;
    const holds = (doc: StoredDocument | null | undefined) =>
      doc != null && reservationKey(index.name, index.fullKey(doc)) === key;
    if (holds(holderOf(held.holder))) throw this.taken(index, held.holder);
    if (Date.now() - held.created < this.graceMs) {
      throw new ConflictError(`${this.collectionName}: another write is taking that ${index.name} key`);
    }
    // An entry naming nobody has no writer on its way: nothing to fence.
    if (held.holder === "") return bucket.reserve(key, id, held.revision);
    // Reclaim: fence the holder's document first (see the class comment), reading it from the bucket itself.
    const found = await bucket.read(held.holder);
    if (holds(found?.doc)) throw this.taken(index, held.holder);
    if (found?.doc) await bucket.write(held.holder, encodeDocument(found.doc), found.revision);
    else await bucket.fenceAbsent(held.holder, found?.revision ?? 0);
    return bucket.reserve(key, id, held.revision);
  }

  private taken(index: CollectionIndex, holder: string): MainlineError {
    return new AlreadyExistsError(
      `${this.collectionName}: unique index ${index.name} already holds that key (document ${holder})`,
    );
  }
}
