import { AlreadyExistsError } from "../errors/index.js";
import { equalityValues, indexableConditions, rangeCondition, type RangeBound } from "./filter-conditions.js";
import {
  compareScalars,
  isIndexScalar,
  keyOfValue,
  keyOfValues,
  typeRank,
  valueAtPath,
  type IndexScalar,
} from "./index-value.js";
import type { IndexKeys, StoredDocument } from "./store.js";

/** Most keys hold one document: keep the id itself and grow to a Set only when a second arrives. */
type IdSet = string | Set<string>;

/** The most equality combinations a compound lookup expands to before giving up on the index. */
const MAX_LOOKUP_KEYS = 1024;

function addId(map: Map<string, IdSet>, key: string, id: string): boolean {
  const held = map.get(key);
  if (held === undefined) {
    map.set(key, id);
    return true;
  }
  if (typeof held === "string") {
    if (held !== id) map.set(key, new Set([held, id]));
  } else {
    held.add(id);
  }
  return false;
}

/** Returns true when the key no longer holds any document. */
function removeId(map: Map<string, IdSet>, key: string, id: string): boolean {
  const held = map.get(key);
  if (held === undefined) return false;
  if (typeof held === "string") {
    if (held !== id) return false;
    map.delete(key);
    return true;
  }
  held.delete(id);
  if (held.size === 1) map.set(key, held.values().next().value as string);
  return false;
}

function pushIds(held: IdSet | undefined, into: Set<string>): void {
  if (held === undefined) return;
  if (typeof held === "string") into.add(held);
  else for (const id of held) into.add(id);
}

/**
 * One declared index of an embedded collection. It keeps, for every prefix of its key pattern, a
 * map from the prefix's values to document ids (equality and `$in` lookups on a compound prefix),
 * plus the distinct scalar values of its first field in sorted order (range scans on that field).
 * Documents whose indexed fields hold arrays or sub-documents are kept aside and returned with
 * every lookup, so the index never hides a document the filter would match.
 */
export class CollectionIndex {
  readonly fields: readonly string[];
  private readonly prefixes: Map<string, IdSet>[];
  private readonly sortedFirstValues: IndexScalar[] = [];
  private readonly unindexed = new Set<string>();

  constructor(
    readonly name: string,
    readonly keys: IndexKeys,
    readonly unique: boolean,
  ) {
    this.fields = Object.keys(keys);
    this.prefixes = this.fields.map(() => new Map<string, IdSet>());
  }

  /** Indexes `docs`; a unique index over duplicates is refused with AlreadyExistsError. */
  static build(
    collection: string,
    name: string,
    keys: IndexKeys,
    unique: boolean,
    docs: Iterable<StoredDocument>,
  ): CollectionIndex {
    const index = new CollectionIndex(name, keys, unique);
    for (const doc of docs) {
      const other = index.conflictingId(doc);
      if (other !== undefined) {
        throw new AlreadyExistsError(
          `${collection}: cannot build unique index ${name}: ${doc._id} and ${other} share a key`,
        );
      }
      index.add(doc);
    }
    return index;
  }

  sameDefinition(keys: IndexKeys, unique: boolean): boolean {
    return unique === this.unique && JSON.stringify(keys) === JSON.stringify(this.keys);
  }

  /** The id of another document holding the same unique key, if any. */
  conflictingId(doc: StoredDocument): string | undefined {
    if (!this.unique) return undefined;
    const held = this.prefixes.at(-1)?.get(this.fullKey(doc));
    if (held === undefined) return undefined;
    if (typeof held === "string") return held === doc._id ? undefined : held;
    for (const id of held) if (id !== doc._id) return id;
    return undefined;
  }

  add(doc: StoredDocument): void {
    const values = this.fields.map((f) => valueAtPath(doc, f));
    if (!values.every(isIndexScalar)) this.unindexed.add(doc._id);
    this.prefixes.forEach((map, i) => {
      const isNewKey = addId(map, keyOfValues(values.slice(0, i + 1)), doc._id);
      if (i === 0 && isNewKey && isIndexScalar(values[0])) this.insertFirstValue(values[0] ?? null);
    });
  }

  remove(doc: StoredDocument): void {
    const values = this.fields.map((f) => valueAtPath(doc, f));
    this.unindexed.delete(doc._id);
    this.prefixes.forEach((map, i) => {
      const keyIsEmpty = removeId(map, keyOfValues(values.slice(0, i + 1)), doc._id);
      if (i === 0 && keyIsEmpty && isIndexScalar(values[0])) this.removeFirstValue(values[0] ?? null);
    });
  }

  /**
   * Ids of the documents that may match `filter`, or undefined when this index cannot narrow it.
   * Equality on the longest usable compound prefix wins; else a range on the first field.
   */
  candidates(filter: object): Set<string> | undefined {
    const conditions = indexableConditions(filter);
    let combos: unknown[][] = [[]];
    for (const field of this.fields) {
      const values = equalityValues(conditions, field);
      if (values === undefined || combos.length * values.length > MAX_LOOKUP_KEYS) break;
      combos = combos.flatMap((prefix) => values.map((v) => [...prefix, v]));
    }
    const depth = combos[0]?.length ?? 0;
    const ids = new Set(this.unindexed);
    if (depth > 0) {
      const map = this.prefixes[depth - 1];
      for (const combo of combos) pushIds(map?.get(keyOfValues(combo)), ids);
      return ids;
    }
    const first = this.fields[0];
    const range = first === undefined ? undefined : rangeCondition(conditions, first);
    if (range === undefined) return undefined;
    for (const value of this.firstValuesWithin(range.lower, range.upper)) {
      pushIds(this.prefixes[0]?.get(keyOfValue(value)), ids);
    }
    return ids;
  }

  /** The key `doc` takes in this index: what a unique index allows one document to hold. */
  fullKey(doc: StoredDocument): string {
    return keyOfValues(this.fields.map((f) => valueAtPath(doc, f)));
  }

  /** First position whose value is not before the boundary `isBefore` describes (binary search). */
  private searchFirstValues(isBefore: (held: IndexScalar) => boolean): number {
    let low = 0;
    let high = this.sortedFirstValues.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (isBefore(this.sortedFirstValues[mid] ?? null)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private positionOf(value: IndexScalar, after = false): number {
    return this.searchFirstValues((held) => {
      const order = compareScalars(held, value);
      return order < 0 || (after && order === 0);
    });
  }

  private insertFirstValue(value: IndexScalar): void {
    this.sortedFirstValues.splice(this.positionOf(value), 0, value);
  }

  private removeFirstValue(value: IndexScalar): void {
    const at = this.positionOf(value);
    const held = this.sortedFirstValues[at];
    if (held !== undefined && compareScalars(held, value) === 0) this.sortedFirstValues.splice(at, 1);
  }

  /** Range filters match one type only (MongoDB brackets comparisons by type), so stay within it. */
  private *firstValuesWithin(
    lower: RangeBound | undefined,
    upper: RangeBound | undefined,
  ): Generator<IndexScalar> {
    const rank = typeRank((lower ?? upper)?.value ?? null);
    let at = lower
      ? this.positionOf(lower.value, !lower.inclusive)
      : this.searchFirstValues((held) => typeRank(held) < rank);
    for (; at < this.sortedFirstValues.length; at++) {
      const value = this.sortedFirstValues[at] ?? null;
      if (typeRank(value) !== rank) return;
      if (upper) {
        const order = compareScalars(value, upper.value);
        if (order > 0 || (order === 0 && !upper.inclusive)) return;
      }
      yield value;
    }
  }
}

/** Refuses `doc` with AlreadyExistsError when a unique index already holds its key for another document. */
export function assertUniqueKeys(
  collection: string,
  indexes: Iterable<CollectionIndex>,
  doc: StoredDocument,
): void {
  for (const index of indexes) {
    const other = index.conflictingId(doc);
    if (other !== undefined) {
      throw new AlreadyExistsError(
        `${collection}: unique index ${index.name} already holds that key (document ${other})`,
      );
    }
  }
}
