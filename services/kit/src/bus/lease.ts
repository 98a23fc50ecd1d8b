import type { JetStreamClient, KV, KvEntry } from "nats";
import { InternalError, InvalidArgumentError, MainlineError } from "../errors/index.js";
import { hasJsErrCode, JsErrCode } from "./jetstream-errors.js";
import { openReplicatedKv, type Replication } from "./replication.js";

/** What the bucket stores per key. */
export interface LeaseRecord {
  owner: string;
  /** Epoch milliseconds by the writer's clock; a lease past it may be taken over. */
  expiresAt: number;
}

/** A lease this process holds, with the bucket revision it last wrote. */
export interface Lease extends LeaseRecord {
  key: string;
  revision: number;
}

export interface LeasesOptions {
  /** Unique per process (e.g. `${hostname}/${pid}/${random}`): two processes must never share one. */
  owner: string;
  ttlMs: number;
  /** Epoch milliseconds; injected so tests move time without sleeping. */
  now?: () => number;
  /** NATS_REPLICAS of the bucket; one copy when omitted. */
  replication?: Replication | undefined;
}

/** Thrown by renew when another owner took the key or this process never held it. */
export class LeaseLostError extends MainlineError {
  readonly code = "ABORTED";
  readonly retryable = false;
  constructor(readonly key: string) {
    super(`lease ${key} is no longer held by this process`);
  }
}

// The KV key alphabet of nats.js; checked here so a bad key is our typed error, not a NatsError.
const KEY = /^[-/=\w]+(\.[-/=\w]+)*$/;

/**
 * Leases give one active owner per key (the queue-coordinator holds one per queue). Every write
 * is a compare-and-set on the key's revision, so of two contenders reading the same state only
 * one write lands: they can never both win.
 */
export class Leases {
  private readonly held = new Map<string, Lease>();
  private readonly now: () => number;

  private constructor(
    private readonly kv: KV,
    readonly owner: string,
    readonly ttlMs: number,
    now: (() => number) | undefined,
  ) {
    this.now = now ?? Date.now;
  }

  /** Opens the bucket, creating it when missing. */
  static async open(js: JetStreamClient, bucket: string, options: LeasesOptions): Promise<Leases> {
    if (options.owner.trim() === "")
      throw new InvalidArgumentError("owner", "a non-empty id unique to this process");
    if (!Number.isInteger(options.ttlMs) || options.ttlMs <= 0) {
      throw new InvalidArgumentError("ttlMs", "a whole number of milliseconds > 0");
    }
    const kv = await openReplicatedKv(js, bucket, { history: 1 }, options.replication);
    return new Leases(kv, options.owner, options.ttlMs, options.now);
  }

  /** The lease as this process last wrote it, if it believes it holds one. */
  heldLease(key: string): Lease | undefined {
    return this.held.get(key);
  }

  /** Who holds the key now, as stored; undefined when free. Expired records are returned as they are. */
  async holder(key: string): Promise<LeaseRecord | undefined> {
    const entry = await this.current(key);
    return entry && parseRecord(entry);
  }

  /**
   * Takes the key when it is free or its lease expired (or extends it when this process already
   * holds it). Resolves undefined when another owner holds a live lease or won the race.
   */
  async acquire(key: string): Promise<Lease | undefined> {
    checkKey(key);
    const entry = await this.current(key);
    const record = entry && parseRecord(entry);
    if (record && record.owner !== this.owner && record.expiresAt > this.now()) return undefined;
    const next = this.nextRecord();
    try {
      const revision = entry
        ? await this.kv.update(key, encode(next), entry.revision)
        : await this.kv.create(key, encode(next));
      return this.remember(key, next, revision);
    } catch (error) {
      if (isLostRace(error)) return undefined;
      throw error;
    }
  }

  /** Pushes the expiry one ttl ahead. Throws LeaseLostError when the key is no longer ours. */
  async renew(key: string): Promise<Lease> {
    checkKey(key);
    const lease = this.held.get(key);
    if (!lease) throw new LeaseLostError(key);
    const next = this.nextRecord();
    try {
      return this.remember(key, next, await this.kv.update(key, encode(next), lease.revision));
    } catch (error) {
      if (!isLostRace(error)) throw error;
    }
    // The revision moved. If the stored owner is still us, the mover was our own earlier write
    // whose reply got lost; adopt its revision and write once more. Anyone else means we lost.
    const entry = await this.current(key);
    const record = entry && parseRecord(entry);
    if (!entry || record?.owner !== this.owner) {
      this.held.delete(key);
      throw new LeaseLostError(key);
    }
    try {
      return this.remember(key, next, await this.kv.update(key, encode(next), entry.revision));
    } catch (error) {
      if (!isLostRace(error)) throw error;
      this.held.delete(key);
      throw new LeaseLostError(key);
    }
  }

  /** Frees the key if this process still holds it; resolves whether it did. */
  async release(key: string): Promise<boolean> {
    checkKey(key);
    const lease = this.held.get(key);
    if (!lease) return false;
    this.held.delete(key);
    try {
      await this.kv.delete(key, { previousSeq: lease.revision });
      return true;
    } catch (error) {
      if (isLostRace(error)) return false;
      throw error;
    }
  }

  private nextRecord(): LeaseRecord {
    return { owner: this.owner, expiresAt: this.now() + this.ttlMs };
  }

  private remember(key: string, record: LeaseRecord, revision: number): Lease {
    const lease = { key, ...record, revision };
    this.held.set(key, lease);
    return lease;
  }

  /** The latest entry for the key, delete markers included: their revision is what a takeover writes against. */
  private async current(key: string): Promise<KvEntry | undefined> {
    return (await this.kv.get(key)) ?? undefined;
  }
}

function checkKey(key: string): void {
  if (!KEY.test(key))
    throw new InvalidArgumentError("key", "letters, digits and - / _ = separated by single dots");
}

function encode(record: LeaseRecord): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(record));
}

function parseRecord(entry: KvEntry): LeaseRecord | undefined {
  if (entry.operation !== "PUT") return undefined;
  const value: unknown = entry.json();
  if (
    typeof value === "object" &&
    value !== null &&
    typeof (value as LeaseRecord).owner === "string" &&
    typeof (value as LeaseRecord).expiresAt === "number"
  ) {
    return value as LeaseRecord;
  }
  throw new InternalError(`lease ${entry.key}: stored value is not a lease record`);
}

function isLostRace(error: unknown): boolean {
  return hasJsErrCode(error, JsErrCode.StreamWrongLastSequence);
}
