import { expect } from "chai";
import { InvalidArgumentError } from "../../src/errors/index.js";
import type { Collection } from "../../src/store/index.js";
import { expectRejection, sortedIds, type ContractContext, type Item } from "./contract-support.js";

export function defineQueryContract(context: ContractContext): void {
  let items: Collection<Item>;

  beforeEach(async () => {
    items = context.fresh();
    await items.insertMany([
      {
        _id: "a",
        name: "alpha",
        n: 1,
        group: "x",
        tags: ["red", "blue"],
        nested: { a: 1, b: "one" },
        items: [{ k: 1 }],
      },
      {
        _id: "b",
        name: "beta",
        n: 5,
        group: "x",
        tags: ["green"],
        nested: { a: 2 },
        items: [{ k: 2, v: "two" }],
      },
      { _id: "c", name: "gamma", n: 10, group: "y", tags: [], at: new Date("2024-01-02T00:00:00Z") },
      { _id: "d", name: "delta", group: "y", note: "no n" },
    ]);
  });

  it("finds everything with an empty filter and nothing with a filter that matches none", async () => {
    expect(sortedIds(await items.find({}))).to.deep.equal(["a", "b", "c", "d"]);
    expect(await items.find({ name: "omega" })).to.deep.equal([]);
    expect(await items.findOne({ name: "omega" })).to.equal(null);
  });

  it("matches equality, $in, $gt, $lt and $exists", async () => {
    expect(sortedIds(await items.find({ group: "x" }))).to.deep.equal(["a", "b"]);
    expect(sortedIds(await items.find({ name: { $in: ["beta", "delta", "zeta"] } }))).to.deep.equal([
      "b",
      "d",
    ]);
    expect(sortedIds(await items.find({ n: { $gt: 1, $lt: 10 } }))).to.deep.equal(["b"]);
    expect(sortedIds(await items.find({ n: { $gte: 5 } }))).to.deep.equal(["b", "c"]);
    expect(sortedIds(await items.find({ n: { $exists: false } }))).to.deep.equal(["d"]);
    expect(sortedIds(await items.find({ note: { $exists: true } }))).to.deep.equal(["d"]);
  });

  it("matches nested fields, array elements and $elemMatch", async () => {
    expect(sortedIds(await items.find({ "nested.a": 2 }))).to.deep.equal(["b"]);
    expect(sortedIds(await items.find({ "nested.b": { $exists: true } }))).to.deep.equal(["a"]);
    expect(sortedIds(await items.find({ tags: "blue" }))).to.deep.equal(["a"]);
    expect(sortedIds(await items.find({ items: { $elemMatch: { k: 2, v: "two" } } }))).to.deep.equal(["b"]);
    expect(sortedIds(await items.find({ items: { $elemMatch: { k: 1, v: "two" } } }))).to.deep.equal([]);
  });

  it("matches $or, $and, $ne and $nin", async () => {
    expect(sortedIds(await items.find({ $or: [{ n: 1 }, { name: "delta" }] }))).to.deep.equal(["a", "d"]);
    expect(sortedIds(await items.find({ $and: [{ group: "x" }, { n: { $ne: 1 } }] }))).to.deep.equal(["b"]);
    expect(sortedIds(await items.find({ group: { $nin: ["x"] } }))).to.deep.equal(["c", "d"]);
  });

  it("returns dates as Date objects and compares them as dates", async () => {
    const found = await items.findOne({ at: { $gt: new Date("2024-01-01T00:00:00Z") } });
    expect(found?._id).to.equal("c");
    expect(found?.at).to.be.instanceOf(Date);
    expect(found?.at?.toISOString()).to.equal("2024-01-02T00:00:00.000Z");
  });

  it("sorts ascending and descending, on several keys, then skips and limits", async () => {
    const byName = await items.find({}, { sort: { name: 1 } });
    expect(byName.map((d) => d.name)).to.deep.equal(["alpha", "beta", "delta", "gamma"]);
    const byGroupThenN = await items.find({}, { sort: { group: -1, n: -1 } });
    expect(byGroupThenN.map((d) => d._id)).to.deep.equal(["c", "d", "b", "a"]);
    const page = await items.find({}, { sort: { name: 1 }, skip: 1, limit: 2 });
    expect(page.map((d) => d.name)).to.deep.equal(["beta", "delta"]);
    expect(await items.find({}, { sort: { name: 1 }, skip: 10 })).to.deep.equal([]);
  });

  it("findOne honours sort and skip", async () => {
    expect((await items.findOne({ group: "x" }, { sort: { n: -1 } }))?._id).to.equal("b");
    expect((await items.findOne({}, { sort: { name: 1 }, skip: 1 }))?._id).to.equal("b");
  });

  it("projects included or excluded fields", async () => {
    const included = await items.findOne({ _id: "a" }, { projection: { name: 1 } });
    expect(included).to.deep.equal({ _id: "a", name: "alpha" });
    const withoutId = await items.findOne({ _id: "a" }, { projection: { name: 1, _id: 0 } });
    expect(withoutId).to.deep.equal({ name: "alpha" });
    const excluded = await items.findOne({ _id: "b" }, { projection: { tags: 0, items: 0, nested: 0 } });
    expect(excluded).to.deep.equal({ _id: "b", name: "beta", n: 5, group: "x" });
  });

  it("counts matching documents", async () => {
    expect(await items.countDocuments()).to.equal(4);
    expect(await items.countDocuments({ group: "y" })).to.equal(2);
    expect(await items.countDocuments({ n: { $gt: 100 } })).to.equal(0);
  });

  it("hands out copies: changing a returned document changes nothing stored", async () => {
    const found = await items.findOne({ _id: "a" });
    if (found === null) throw new Error("a is missing");
    found.name = "changed";
    found.tags?.push("mutated");
    expect(await items.findOne({ _id: "a" })).to.include({ name: "alpha" });
    expect((await items.findOne({ _id: "a" }))?.tags).to.deep.equal(["red", "blue"]);
  });

  it("rejects an unknown query operator and bad limits with InvalidArgumentError", async () => {
    await expectRejection(items.find({ n: { $bogus: 1 } }), InvalidArgumentError);
    await expectRejection(items.find({}, { limit: -1 }), InvalidArgumentError);
    await expectRejection(items.find({}, { skip: 1.5 }), InvalidArgumentError);
    await expectRejection(items.find({}, { sort: { name: 2 as 1 } }), InvalidArgumentError);
  });
}
