import type { Store, StoredDocument } from "../../src/store/index.js";
import { defineIndexContract } from "./contract-indexes.js";
import { defineQueryContract } from "./contract-queries.js";
import { defineRaceContract } from "./contract-races.js";
import type { ContractContext, Item, RaceContext } from "./contract-support.js";
import { defineWriteContract } from "./contract-writes.js";

/**
 * The behaviour every store adapter must show, written once and run against each adapter
 * (store.test.ts): repository code relies on exactly this and nothing adapter-specific.
 */
export interface StoreContractFixture {
  open(): Promise<Store>;
  /**
   * Another store instance on the same data, over its own connection (as another replica of a
   * service has); the fixture closes it.
   */
  openPeer(): Promise<Store>;
  /** Runs once after the suite, before the store is closed (e.g. drop the test database). */
  cleanup?(store: Store): Promise<void>;
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

  const racing: RaceContext = {
    async racers<T extends StoredDocument>() {
      if (store === undefined) throw new Error("the contract's store is not open");
      const peer = await fixture.openPeer();
      const name = `race_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
      return {
        a: store.collection<T>(name),
        b: peer.collection<T>(name),
        reread: async () => (await fixture.openPeer()).collection<T>(name),
      };
    },
  };

  describe("writes", () => defineWriteContract(context));
  describe("queries", () => defineQueryContract(context));
  describe("indexes", () => defineIndexContract(context));
  describe("races between two instances", () => defineRaceContract(racing));
}
