import type { KV, KvEntry } from "nats";
import { withAttempts } from "../bus/index.js";
import { UnavailableError } from "../errors/index.js";
import { BucketFeed } from "./bucket-feed.js";
import { compareAndSet, type BucketStream } from "./compare-and-set.js";
import { idOfKey, isReservationKey, keyOfId } from "./bucket-naming.js";
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

/** A followed unique-key reservation (see UniqueReservations): `holder` is null once released. */
export interface FollowedReservation {
  key: string;
  revision: number;
  holder: string | null;
  /** When the server stored it (ms since the epoch). */
  created: number;
}

export interface BucketFollower {
  stop(): void;
}

/** The bucket as EmbeddedStore opened it: the key-value view, and its stream for raw publishes and reads. */
export interface OpenedBucket extends BucketStream {
  kv: KV;
  /** The same bucket, through a client whose requests wait one attempt: a feed resumed while a leader is elected. */
  resumeKv: KV;
}

/** How long a read barrier waits for the feed to reach the bucket's last revision. */
const BARRIER_TIMEOUT_MS = 10_000;
/** How long a read barrier waits before it takes the feed for stalled and resumes it on a new consumer. */
const FEED_STALL_MS = 1_500;

function lazyDocument(entry: KvEntry): () => StoredDocument | null {
  return () => (entry.operation === "PUT" ? decodeDocument<StoredDocument>(entry.string()) : null);
}

/** The `_id` a reservation names; an entry this code did not write names nobody (and so is reclaimable). */
function holderOf(entry: KvEntry): string {
  if (entry.operation !== "PUT") return "";
  try {
    const { id } = JSON.parse(entry.string()) as { id?: unknown };
    return typeof id === "string" ? id : "";
  } catch {
    return "";
  }
}

/**
 * The durable side of an embedded collection: one key-value entry per document, keyed by its
 * `_id`, every write compare-and-set on the revision the caller last saw (a create on the
 * revision of the key's delete marker, or on "no entry at all"), plus the unique-key
 * reservations. Failures come out as the store's typed errors (ConflictError when the revision
 * moved). It also follows the bucket, and offers the read barrier every write starts with.
 */
export class DocumentBucket {
  /** The last bucket revision the feed handed over (documents and reservations alike). */
  private applied = 0;
  private waiters: { revision: number; resolve: () => void }[] = [];
  /** The revision of every key whose last entry is a delete marker, so a create can compare-and-set on it. */
  private readonly deletedAt = new Map<string, number>();
  /** Ids of digest keys (see keyOfId), learnt from their documents, so a later delete can be named. */
  private readonly digestIds = new Map<string, string>();
  private barriersSent = 0;
  private barriersPassed = 0;
  private barrierInFlight: { id: number; done: Promise<void> } | undefined;
  private feed: BucketFeed | undefined;

  constructor(
    private readonly bucket: OpenedBucket,
    private readonly collectionName: string,
  ) {}

  private get kv(): KV {
    return this.bucket.kv;
  }

  /**
   * Hands `apply` the last entry of every key, resolves once it reached the bucket's last revision
   * when the call started, then keeps handing it every later entry (this process's writes and other
   * processes') until `stop()`; `onEnd` hears when the feed ends for any other reason.
   */
  async follow(
    apply: (entry: FollowedEntry) => void,
    reserve: (entry: FollowedReservation) => void,
    onEnd: (error?: unknown) => void,
  ): Promise<BucketFollower> {
    let failed: (error: unknown) => void = () => undefined;
    const failure = new Promise<never>((_resolve, reject) => (failed = reject));
    failure.catch(() => undefined);
    const feed = new BucketFeed(
      this.kv,
      this.bucket.resumeKv,
      () => this.applied,
      (entry) => {
        this.take(entry, apply, reserve);
        // Entries arrive in revision order, so nothing older than this one is still to come.
        this.advance(entry.revision);
      },
      (error) => {
        if (error !== undefined) failed(storeErrorOfKv(error, `loading collection ${this.collectionName}`));
        onEnd(error);
      },
    );
    let lastRevision: number;
    try {
      lastRevision = await this.lastRevision();
      await feed.start();
    } catch (error) {
      throw storeErrorOfKv(error, `loading collection ${this.collectionName}`);
    }
    this.feed = feed;
    await Promise.race([this.reached(lastRevision), failure]);
    return {
      stop: () => {
        this.feed = undefined;
        feed.stop();
      },
    };
  }

  private take(
    entry: KvEntry,
    apply: (entry: FollowedEntry) => void,
    reserve: (entry: FollowedReservation) => void,
  ): void {
    if (entry.operation === "PUT") this.deletedAt.delete(entry.key);
    else this.deletedAt.set(entry.key, entry.revision);
    if (isReservationKey(entry.key)) {
      const created = entry.created.getTime();
      const holder = entry.operation === "PUT" ? holderOf(entry) : null;
      reserve({ key: entry.key, revision: entry.revision, holder, created });
      return;
    }
    const id = this.idOf(entry);
    // A delete of a digest key never seen written held nothing here: there is nothing to forget.
    if (id !== undefined) apply({ id, revision: entry.revision, doc: lazyDocument(entry) });
  }

  private advance(revision: number): void {
    if (revision <= this.applied) return;
    this.applied = revision;
    const ready = this.waiters.filter((w) => w.revision <= revision);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.revision > revision);
    for (const waiter of ready) waiter.resolve();
  }

  private reached(revision: number): Promise<void> {
    if (revision <= this.applied) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ revision, resolve }));
  }

  /** The stream's last revision, or 0 when it holds nothing (after a purge no entry brings it back). */
  private async lastRevision(): Promise<number> {
    const { state } = await withAttempts(() => this.bucket.jsm.streams.info(`KV_${this.bucket.name}`));
    return state.messages === 0 ? 0 : state.last_seq;
  }

  /**
   * A mark taken when an operation is called: `barrier(mark)` then settles for any barrier sent
   * after it, so operations queued at once share one round trip.
   */
  mark(): number {
    return this.barriersSent;
  }

  /**
   * The read barrier: resolves once the feed has handed over every entry the bucket held when a
   * barrier request was sent after `mark` (a fresh request when left out), so what memory shows
   * is at least as new as the bucket was when the operation was called (another process's
   * acknowledged write included). One round trip to the stream, plus the feed's own lag.
   */
  async barrier(mark = this.barriersSent): Promise<void> {
    if (this.barriersPassed > mark) return;
    if (this.barrierInFlight !== undefined && this.barrierInFlight.id > mark)
      return this.barrierInFlight.done;
    const id = ++this.barriersSent;
    const done = this.catchUp().then(() => {
      this.barriersPassed = Math.max(this.barriersPassed, id);
    });
    this.barrierInFlight = { id, done };
    try {
      await done;
    } finally {
      if (this.barrierInFlight?.id === id) this.barrierInFlight = undefined;
    }
  }

  private async catchUp(): Promise<void> {
    let target: number;
    try {
      target = await this.lastRevision();
    } catch (error) {
      throw storeErrorOfKv(error, `reading collection ${this.collectionName}`);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const why = `collection ${this.collectionName}: the bucket's feed did not reach revision ${target}`;
        reject(new UnavailableError(why));
      }, BARRIER_TIMEOUT_MS);
    });
    // A feed still short of the target after a while is resumed on a new consumer (see BucketFeed).
    const stall = setTimeout(() => this.feed?.restart(), FEED_STALL_MS);
    try {
      await Promise.race([this.reached(target), timeout]);
    } finally {
      clearTimeout(timer);
      clearTimeout(stall);
    }
  }

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

  /**
   * Creates the entry when `previousRevision` is undefined (on the revision of its delete marker
   * as the feed last showed it, or on no entry at all); returns the new revision.
   */
  async write(id: string, encoded: string, previousRevision: number | undefined): Promise<number> {
    return this.putKey(keyOfId(id), encoded, previousRevision, `writing ${this.collectionName}/${id}`);
  }

  async delete(id: string, previousRevision: number): Promise<void> {
    await this.deleteKey(keyOfId(id), previousRevision, `deleting ${this.collectionName}/${id}`);
  }

  /**
   * Writes a delete marker on a document that is absent, on the revision it was seen absent at
   * (0: never written), so that a create still on its way, decided on that revision, fails.
   */
  async fenceAbsent(id: string, absentRevision: number): Promise<void> {
    await this.deleteKey(keyOfId(id), absentRevision, `fencing ${this.collectionName}/${id}`);
  }

  /** Writes a reservation naming `holder`; `previousRevision` as for write(). */
  async reserve(key: string, holder: string, previousRevision: number | undefined): Promise<number> {
    const what = `reserving a unique key in ${this.collectionName}`;
    return this.putKey(key, JSON.stringify({ id: holder }), previousRevision, what);
  }

  async release(key: string, previousRevision: number): Promise<void> {
    await this.deleteKey(key, previousRevision, `releasing a unique key in ${this.collectionName}`);
  }

  private async putKey(
    key: string,
    encoded: string,
    previousRevision: number | undefined,
    what: string,
  ): Promise<number> {
    const previousSeq = previousRevision ?? this.deletedAt.get(key) ?? 0;
    try {
      return await compareAndSet(this.bucket, key, encoded, previousSeq);
    } catch (error) {
      throw storeErrorOfKv(error, what);
    }
  }

  /** A delete marker, compare-and-set on `previousRevision` (0: the key holds no entry at all). */
  private async deleteKey(key: string, previousRevision: number, what: string): Promise<void> {
    // kv.delete() sends no expectation for revision 0, so the marker is published here.
    try {
      await compareAndSet(this.bucket, key, new Uint8Array(0), previousRevision, "DEL");
    } catch (error) {
      throw storeErrorOfKv(error, what);
    }
  }
}
