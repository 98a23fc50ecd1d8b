import { expect } from "chai";
import type { Collection, Store, StoredDocument } from "../../src/store/index.js";
import { defineIndexContract } from "./contract-indexes.js";
import { defineQueryContract } from "./contract-queries.js";
import { defineWriteContract } from "./contract-writes.js";

/**
 * The behaviour every store adapter must show, written once and run against each adapter
 * (store.test.ts): repository code relies on exactly this and nothing adapter-specific.
 */
export interface StoreContractFixture {
  open(): Promise<Store>;
  /** Runs once after the suite, before the store is closed (e.g. drop the test database). */
  cleanup?(store: Store): Promise<void>;
}

/** What the contract's sections get: a fresh, empty collection per call. */
export interface ContractContext {
  fresh<T extends StoredDocument = Item>(): Collection<T>;
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

export function defineStoreContract(fixture: StoreContractFixture): void {
  let store: Store | undefined;
  let counter = 0;
  const context: ContractContext = {
    fresh<T extends StoredDocument = Item>() {
      if (store === undefined) throw new Error("the contract's store is not open");
      counter += 1;
      return store.collection<T>(`contract_${counter}_${Math.random().toString(36).slice(2, 8)}`);
    },
  };

  before(async () => {
    store = await fixture.open();
  });
  after(async () => {
    if (store === undefined) return;
    await fixture.cleanup?.(store);
    await store.close();
  });

  describe("writes", () => defineWriteContract(context));
  describe("queries", () => defineQueryContract(context));
  describe("indexes", () => defineIndexContract(context));
}
