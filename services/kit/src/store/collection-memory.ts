import { Query } from "mingo";
import { FailedPreconditionError, InvalidArgumentError, MainlineError } from "../errors/index.js";
import { assertUniqueKeys, CollectionIndex } from "./collection-index.js";
import type { FollowedEntry } from "./document-bucket.js";
import { indexableConditions, equalityValues } from "./filter-conditions.js";
import { assertFilter, assertFindOptions } from "./find-options.js";
import type { FindOptions, IndexKeys, StoredDocument } from "./store.js";

/** A document as held in memory, with the bucket revision its next write must compare against. */
export interface StoredRecord {
  doc: StoredDocument;
  revision: number;
}

/**
 * The documents of one embedded collection as this process holds them: each at the bucket revision it was
 * read or written at, with the collection's indexes, answering every query without a round trip. It changes
 * only on what the bucket acknowledged or fed back, so it never holds what a reload would not bring back.
 */
export class CollectionMemory {
  private readonly records = new Map<string, StoredRecord>();
  private readonly indexes = new Map<string, CollectionIndex>();
  /** Deleted here, at a revision after this one; cleared when the delete comes back on the feed. */
  private readonly tombstones = new Map<string, number>();

  constructor(private readonly collectionName: string) {}

  clear(): void {
    this.records.clear();
    this.tombstones.clear();
  }

  get(id: string): StoredRecord | undefined {
    return this.records.get(id);
  }

  /**
   * Applies an entry of the bucket's feed unless memory already holds that revision or a later one:
   * most entries are the echo of this process's own writes; the rest are other processes' writes,
   * which is how a second replica's memory stays current without a reload.
   */
  follow(entry: FollowedEntry): void {
    const held = this.records.get(entry.id)?.revision ?? this.tombstones.get(entry.id) ?? 0;
    if (entry.revision <= held) return;
    this.tombstones.delete(entry.id);
    const doc = entry.doc();
    if (doc) this.remember(doc, entry.revision);
    else this.forget(entry.id);
  }

  remember(doc: StoredDocument, revision: number): void {
    // The feed may have brought a later write of another process before this write's ack returned.
    if ((this.records.get(doc._id)?.revision ?? 0) > revision) return;
    this.forget(doc._id);
    this.records.set(doc._id, { doc, revision });
    for (const index of this.indexes.values()) index.add(doc);
  }

  forget(id: string): void {
    const held = this.records.get(id);
    if (held === undefined) return;
    for (const index of this.indexes.values()) index.remove(held.doc);
    this.records.delete(id);
  }

  /** Forgets a document this process deleted at a revision after `revision`. */
  deleted(id: string, revision: number): void {
    this.forget(id);
    // Until the delete's own entry comes back on the feed, older echoes must not bring the document back.
    this.tombstones.set(id, revision);
  }

  uniqueIndexes(): CollectionIndex[] {
    return [...this.indexes.values()].filter((index) => index.unique);
  }

  /** The document held under `id` if it still matches `filter` (a write re-checks it after a lost compare-and-set). */
  matching(id: string, filter: object): StoredRecord | undefined {
    const record = this.records.get(id);
    if (record === undefined) return undefined;
    return compile(filter).test(record.doc as unknown as Record<string, unknown>) ? record : undefined;
  }

  /** Throws AlreadyExistsError when `doc` would take a unique key another document holds. */
  assertUniqueKeys(doc: StoredDocument): void {
    assertUniqueKeys(this.collectionName, this.indexes.values(), doc);
  }

  /** Builds the index unless one of that name and definition exists; a clash of name or keys is refused. */
  ensureIndex(name: string, keys: IndexKeys, unique: boolean): string {
    const existing = this.indexes.get(name);
    if (existing?.sameDefinition(keys, unique)) return name;
    const clash = existing ?? [...this.indexes.values()].find((i) => i.sameDefinition(keys, i.unique));
    if (clash) {
      throw new FailedPreconditionError(
        `${this.collectionName}: index ${clash.name} already exists with other keys, options or name`,
      );
    }
    this.indexes.set(
      name,
      CollectionIndex.build(this.collectionName, name, keys, unique, this.allDocuments()),
    );
    return name;
  }

  count(filter: object): number {
    assertFilter(filter);
    const query = compile(filter);
    let count = 0;
    for (const doc of this.candidates(filter))
      if (query.test(doc as unknown as Record<string, unknown>)) count++;
    return count;
  }

  /** Matching in-memory documents (shared references: never hand them out or change them). */
  select(filter: object, options: FindOptions): StoredDocument[] {
    assertFilter(filter);
    assertFindOptions(options);
    const byId = idLookup(filter, options);
    if (byId !== undefined) {
      // The hottest read (a document by its id) needs no query engine: same answer, a fraction of the cost.
      const record = this.records.get(byId);
      return record && !options.skip ? [record.doc] : [];
    }
    const query = compile(filter);
    const { projection } = options;
    try {
      let cursor = query.find<StoredDocument>(
        this.candidates(filter),
        projection && Object.keys(projection).length > 0 ? projection : undefined,
      );
      if (options.sort && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort);
      if (options.skip) cursor = cursor.skip(options.skip);
      if (options.limit) cursor = cursor.limit(options.limit);
      return cursor.all();
    } catch (error) {
      if (error instanceof MainlineError) throw error;
      throw new InvalidArgumentError("filter", error instanceof Error ? error.message : String(error));
    }
  }

  /** The documents an index lets us look at (all of them when no index narrows the filter). */
  private candidates(filter: object): Iterable<StoredDocument> {
    let best: Set<string> | undefined;
    const ids = equalityValues(indexableConditions(filter), "_id");
    if (ids) best = new Set(ids.filter((id): id is string => typeof id === "string"));
    for (const index of this.indexes.values()) {
      if (best && best.size <= 1) break;
      const found = index.candidates(filter);
      if (found && (best === undefined || found.size < best.size)) best = found;
    }
    if (best === undefined) return this.allDocuments();
    const docs: StoredDocument[] = [];
    for (const id of best) {
      const record = this.records.get(id);
      if (record) docs.push(record.doc);
    }
    return docs;
  }

  private *allDocuments(): Generator<StoredDocument> {
    for (const record of this.records.values()) yield record.doc;
  }
}

function compile(filter: object): Query {
  try {
    return new Query(filter);
  } catch (error) {
    throw new InvalidArgumentError("filter", error instanceof Error ? error.message : String(error));
  }
}

/** The id of a filter that is exactly `{ _id: "<id>" }` with no projection, else undefined. */
function idLookup(filter: object, options: FindOptions): string | undefined {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== "_id") return undefined;
  if (options.projection && Object.keys(options.projection).length > 0) return undefined;
  const id = (filter as { _id?: unknown })._id;
  return typeof id === "string" ? id : undefined;
}
