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

export function keyOfId(id: string): string {
  return Buffer.from(id, "utf8").toString("base64url");
}

export function idOfKey(key: string): string {
  return Buffer.from(key, "base64url").toString("utf8");
}
