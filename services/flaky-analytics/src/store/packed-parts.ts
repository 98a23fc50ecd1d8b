import { deflateRawSync, inflateRawSync } from "node:zlib";
import { InternalError } from "@mainline/kit/errors/index";

/**
 * Packs a long list of items (a journal entry's runs, a snapshot's tests) into a few document-sized
 * strings: JSON, deflated and base64-encoded. Each part is a self-contained array, small enough for
 * one key-value entry under NATS's default 1 MB max_payload (base64 is ASCII: characters are bytes).
 * Compression keeps repeated field names and ids from costing bytes on the wire, on disk and in the
 * embedded store's memory.
 */
const MAX_PART_CHARS = 900_000;
/** Raw JSON per part before compression; deflate usually shrinks it five to ten times. */
const RAW_PART_CHARS = 3_000_000;
/** Items measured to size the first part; later parts follow the size the items turn out to have. */
const SAMPLE = 50;

export function packItems(items: readonly unknown[]): string[] {
  const parts: string[] = [];
  const sample = JSON.stringify(items.slice(0, SAMPLE)).length / Math.max(1, Math.min(SAMPLE, items.length));
  let batch = Math.max(1, Math.floor(RAW_PART_CHARS / sample));
  let from = 0;
  do {
    const slice = items.slice(from, from + batch);
    const json = JSON.stringify(slice);
    packBatch(slice, json, parts);
    from += slice.length;
    // Aim the next batch at the raw size a part should have (the items of a list are alike).
    batch = Math.max(1, Math.floor((slice.length * RAW_PART_CHARS) / Math.max(1, json.length)));
  } while (from < items.length);
  return parts;
}

function packBatch(batch: readonly unknown[], json: string, parts: string[]): void {
  const packed = deflateRawSync(json, { level: 1 }).toString("base64");
  // Poorly compressible items: halve the batch until each part fits (one item always goes alone).
  if (packed.length <= MAX_PART_CHARS || batch.length <= 1) {
    parts.push(packed);
    return;
  }
  const half = Math.ceil(batch.length / 2);
  const first = batch.slice(0, half);
  const second = batch.slice(half);
  packBatch(first, JSON.stringify(first), parts);
  packBatch(second, JSON.stringify(second), parts);
}

/** The items of `parts`, in order. `what` names the data in the error when a part is damaged. */
export function unpackItems<T>(parts: readonly string[], what: string): T[] {
  const items: T[] = [];
  for (const [index, part] of parts.entries()) {
    let decoded: unknown;
    try {
      decoded = JSON.parse(inflateRawSync(Buffer.from(part, "base64")).toString("utf8"));
    } catch (error) {
      throw new InternalError(`${what}: part ${index} cannot be read`, { cause: error });
    }
    if (!Array.isArray(decoded)) throw new InternalError(`${what}: part ${index} is not a list`);
    for (const item of decoded as T[]) items.push(item);
  }
  return items;
}
