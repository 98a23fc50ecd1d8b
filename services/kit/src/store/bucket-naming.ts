import { createHash } from "node:crypto";

/**
 * Names in JetStream key-value terms. Bucket names allow only `[A-Za-z0-9_-]`, keys only
 * `[-/_=.A-Za-z0-9]`; both encodings below are reversible, so two different collections never
 * share a bucket and two different `_id`s never share a key.
 */

/** Letters and digits stay; every other byte becomes `-xx` (hex), so `_` can separate the parts. */
function escapeNamePart(part: string): string {
  let out = "";
  for (const byte of Buffer.from(part, "utf8")) {
    const isAlnum =
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a);
    out += isAlnum ? String.fromCharCode(byte) : `-${byte.toString(16).padStart(2, "0")}`;
  }
  return out;
}

/** `mainline` + `test_results` gives `mainline_test-5fresults`. */
export function bucketName(database: string, collection: string): string {
  return `${escapeNamePart(database)}_${escapeNamePart(collection)}`;
}

/**
 * Longest key written as the id itself. A key travels in a NATS subject (`$KV.<bucket>.<key>`) on a protocol
 * line that NATS caps at 4 KiB and answers by closing the connection; keys up to this length have always been
 * written this way and stay so, longer ids get a digest key instead.
 */
export const MAX_PLAIN_KEY_LENGTH = 2048;

/** Digest keys contain ".", which base64url never does, so they never meet a plain key. */
const DIGEST_PREFIX = "sha256.";

export function keyOfId(id: string): string {
  const plain = Buffer.from(id, "utf8").toString("base64url");
  if (plain.length <= MAX_PLAIN_KEY_LENGTH) return plain;
  return DIGEST_PREFIX + createHash("sha256").update(id, "utf8").digest("base64url");
}

/** Reservation keys contain ".", which base64url never does, and start unlike digest keys. */
const RESERVATION_PREFIX = "unique.";

/**
 * The key reserving one value of one unique index: a digest of both, so any value fits NATS's key
 * rules, and every process computes the same key for the same value.
 */
export function reservationKey(indexName: string, valueKey: string): string {
  const digest = createHash("sha256").update(indexName, "utf8").update("\0").update(valueKey, "utf8");
  return RESERVATION_PREFIX + digest.digest("base64url");
}

export function isReservationKey(key: string): boolean {
  return key.startsWith(RESERVATION_PREFIX);
}

/** The id a key was made from; undefined for a digest key (the document holds its `_id`). */
export function idOfKey(key: string): string | undefined {
  if (key.startsWith(DIGEST_PREFIX)) return undefined;
  return Buffer.from(key, "base64url").toString("utf8");
}
