import { expect } from "chai";
import { CollectionIndex } from "../../src/store/collection-index.js";
import type { StoredDocument } from "../../src/store/index.js";

interface Row extends StoredDocument {
  hour?: unknown;
  test?: unknown;
}

/** The embedded index on its own: which documents a lookup lets the collection look at. */
describe("embedded collection index", () => {
  const rows: Row[] = [
    { _id: "a", hour: 1, test: "t1" },
    { _id: "b", hour: 2, test: "t1" },
    { _id: "c", hour: 2, test: "t2" },
    { _id: "d", hour: 3, test: "t2" },
    { _id: "e", hour: "2", test: "t1" },
    { _id: "f", test: "t3" },
    { _id: "g", hour: [2, 9], test: "t1" },
  ];
  let index: CollectionIndex;

  beforeEach(() => {
    index = new CollectionIndex("hour_1_test_1", { hour: 1, test: 1 }, false);
    rows.forEach((row) => index.add(row));
  });

  const ids = (found: Set<string> | undefined): string[] | undefined =>
    found ? [...found].sort() : undefined;

  it("narrows equality and $in on a compound prefix to the matching keys, plus array-valued documents", () => {
    expect(ids(index.candidates({ hour: 2 }))).to.deep.equal(["b", "c", "g"]);
    expect(ids(index.candidates({ hour: 2, test: "t2" }))).to.deep.equal(["c", "g"]);
    expect(ids(index.candidates({ hour: { $in: [1, 3] }, test: { $eq: "t1" } }))).to.deep.equal(["a", "g"]);
    expect(ids(index.candidates({ hour: "2" }))).to.deep.equal(["e", "g"]);
    expect(ids(index.candidates({ hour: null }))).to.deep.equal(["f", "g"]);
  });

  it("scans a range of the first field within its type, in key order", () => {
    expect([...(index.candidates({ hour: { $gt: 1, $lte: 3 } }) ?? [])]).to.deep.equal(["g", "b", "c", "d"]);
    expect(ids(index.candidates({ hour: { $lt: 2 } }))).to.deep.equal(["a", "g"]);
    expect(ids(index.candidates({ hour: { $gte: "0" } }))).to.deep.equal(["e", "g"]);
  });

  it("declines filters it cannot narrow", () => {
    expect(index.candidates({ test: "t1" })).to.equal(undefined);
    expect(index.candidates({ $or: [{ hour: 1 }, { hour: 2 }] })).to.equal(undefined);
    expect(index.candidates({ hour: { $regex: "^2" } })).to.equal(undefined);
  });

  it("forgets removed documents and keys", () => {
    index.remove(rows[1] as Row);
    index.remove(rows[2] as Row);
    expect(ids(index.candidates({ hour: 2 }))).to.deep.equal(["g"]);
    expect(ids(index.candidates({ hour: { $gte: 1 } }))).to.deep.equal(["a", "d", "g"]);
  });

  it("reports the holder of a unique key, but not the document itself", () => {
    const unique = new CollectionIndex("u", { test: 1 }, true);
    unique.add({ _id: "x", test: "t1" } as Row);
    expect(unique.conflictingId({ _id: "y", test: "t1" } as Row)).to.equal("x");
    expect(unique.conflictingId({ _id: "x", test: "t1" } as Row)).to.equal(undefined);
    expect(unique.conflictingId({ _id: "y", test: "t2" } as Row)).to.equal(undefined);
  });
});
