import { expect } from "chai";
import type { Collection, StoredDocument } from "../../src/store/index.js";

/** What the contract's sections get: a fresh, empty collection per call. */
export interface ContractContext {
  fresh<T extends StoredDocument = Item>(): Collection<T>;
}

/** What the race section gets: one fresh collection seen through two store instances at once. */
export interface RaceContext {
  racers<T extends StoredDocument>(): Promise<{
    a: Collection<T>;
    b: Collection<T>;
    /** The collection through a store opened now, to check what the races left. */
    reread(): Promise<Collection<T>>;
  }>;
}

/** The document shape most contract tests use. */
export interface Item extends StoredDocument {
  name: string;
  n?: number;
  group?: string;
  tags?: string[];
  nested?: { a?: number; b?: string };
  items?: { k: number; v?: string }[];
  at?: Date;
  note?: string;
}

export async function expectRejection<E extends Error>(
  operation: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  let outcome: unknown;
  try {
    await operation;
  } catch (error) {
    outcome = error;
  }
  expect(outcome, `expected a rejection with ${type.name}`).to.be.instanceOf(type);
  return outcome as E;
}

export function sortedIds(docs: readonly StoredDocument[]): string[] {
  return docs.map((d) => d._id).sort();
}
