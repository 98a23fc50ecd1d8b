import { expect } from "chai";
import { AlreadyExistsError, InvalidArgumentError } from "../../src/errors/index.js";
import type { Collection } from "../../src/store/index.js";
import { expectRejection, sortedIds, type ContractContext, type Item } from "./contract-support.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function defineWriteContract(context: ContractContext): void {
  let items: Collection<Item>;

  beforeEach(() => {
    items = context.fresh();
  });

  describe("insertOne and insertMany", () => {
    it("assigns a UUID string _id when absent and keeps a given one", async () => {
      const { insertedId } = await items.insertOne({ name: "generated" });
      expect(insertedId).to.match(UUID);
      expect(await items.findOne({ _id: insertedId })).to.deep.equal({ _id: insertedId, name: "generated" });
      expect((await items.insertOne({ _id: "mine", name: "given" })).insertedId).to.equal("mine");
      expect((await items.findOne({ _id: "mine" }))?.name).to.equal("given");
    });

    it("rejects a duplicate _id with AlreadyExistsError and keeps the first document", async () => {
      await items.insertOne({ _id: "x", name: "first" });
      await expectRejection(items.insertOne({ _id: "x", name: "second" }), AlreadyExistsError);
      expect(await items.find({})).to.deep.equal([{ _id: "x", name: "first" }]);
    });

    it("rejects an _id that is not a non-empty string", async () => {
      await expectRejection(items.insertOne({ _id: "", name: "empty" }), InvalidArgumentError);
      await expectRejection(
        items.insertOne({ _id: 7 as unknown as string, name: "number" }),
        InvalidArgumentError,
      );
      expect(await items.countDocuments()).to.equal(0);
    });

    it("stores a copy: changing the inserted object afterwards changes nothing stored", async () => {
      const doc = { _id: "copy", name: "original", tags: ["a"] };
      await items.insertOne(doc);
      doc.name = "changed";
      doc.tags.push("b");
      expect(await items.findOne({ _id: "copy" })).to.deep.equal({
        _id: "copy",
        name: "original",
        tags: ["a"],
      });
    });

    it("inserts many in order and returns their ids", async () => {
      const result = await items.insertMany([
        { _id: "1", name: "one" },
        { name: "two" },
        { _id: "3", name: "three" },
      ]);
      expect(result.insertedCount).to.equal(3);
      expect(result.insertedIds[0]).to.equal("1");
      expect(result.insertedIds[1]).to.match(UUID);
      expect(result.insertedIds[2]).to.equal("3");
      expect(await items.countDocuments()).to.equal(3);
    });

    it("stops insertMany at the first duplicate, keeping the documents before it", async () => {
      await items.insertOne({ _id: "2", name: "existing" });
      const rows = [
        { _id: "1", name: "one" },
        { _id: "2", name: "two" },
        { _id: "3", name: "three" },
      ];
      await expectRejection(items.insertMany(rows), AlreadyExistsError);
      expect(sortedIds(await items.find({}))).to.deep.equal(["1", "2"]);
      expect((await items.findOne({ _id: "2" }))?.name).to.equal("existing");
    });
  });

  describe("updateOne and updateMany", () => {
    beforeEach(async () => {
      await items.insertMany([
        {
          _id: "a",
          name: "alpha",
          n: 1,
          group: "x",
          tags: ["red"],
          items: [{ k: 1 }, { k: 2 }],
          nested: { a: 1 },
        },
        { _id: "b", name: "beta", n: 2, group: "x" },
        { _id: "c", name: "gamma", n: 3, group: "y" },
      ]);
    });

    it("applies $set (nested too), $inc, $push, $pull and $unset", async () => {
      const result = await items.updateOne(
        { _id: "a" },
        {
          $set: { "nested.b": "new", name: "ALPHA" },
          $inc: { n: 10 },
          $push: { tags: "blue" },
          $pull: { items: { k: 1 } },
          $unset: { group: "" },
        },
      );
      expect(result).to.deep.equal({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null });
      expect(await items.findOne({ _id: "a" })).to.deep.equal({
        _id: "a",
        name: "ALPHA",
        n: 11,
        tags: ["red", "blue"],
        items: [{ k: 2 }],
        nested: { a: 1, b: "new" },
      });
    });

    it("updates only the first match, and counts an update that changes nothing as unmodified", async () => {
      const one = await items.updateOne({ group: "x" }, { $inc: { n: 100 } });
      expect(one.matchedCount).to.equal(1);
      expect(await items.countDocuments({ n: { $gt: 100 } })).to.equal(1);
      const same = await items.updateOne({ _id: "c" }, { $set: { n: 3 } });
      expect(same).to.include({ matchedCount: 1, modifiedCount: 0 });
      const none = await items.updateOne({ _id: "zzz" }, { $set: { n: 3 } });
      expect(none).to.deep.equal({ matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null });
    });

    it("updates every match with updateMany", async () => {
      const result = await items.updateMany({ group: "x" }, { $set: { note: "bulk" } });
      expect(result).to.include({ matchedCount: 2, modifiedCount: 2, upsertedCount: 0 });
      expect(sortedIds(await items.find({ note: "bulk" }))).to.deep.equal(["a", "b"]);
    });

    it("upserts from the filter's equality fields plus $set and $setOnInsert", async () => {
      const result = await items.updateOne(
        { group: "z", name: "zeta" },
        { $set: { n: 7 }, $setOnInsert: { note: "created" } },
        { upsert: true },
      );
      expect(result).to.include({ matchedCount: 0, modifiedCount: 0, upsertedCount: 1 });
      expect(result.upsertedId).to.match(UUID);
      const inserted = await items.findOne({ _id: result.upsertedId ?? "" });
      expect(inserted).to.deep.equal({
        _id: result.upsertedId,
        group: "z",
        name: "zeta",
        n: 7,
        note: "created",
      });
    });

    it("keeps the filter's _id on upsert and ignores $setOnInsert when a document matched", async () => {
      const inserted = await items.updateOne({ _id: "new" }, { $set: { name: "fresh" } }, { upsert: true });
      expect(inserted.upsertedId).to.equal("new");
      const matched = await items.updateOne(
        { _id: "b" },
        { $set: { n: 20 }, $setOnInsert: { note: "never" } },
        { upsert: true },
      );
      expect(matched).to.include({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null });
      expect(await items.findOne({ _id: "b" })).to.deep.equal({ _id: "b", name: "beta", n: 20, group: "x" });
    });

    it("upserts once with updateMany when nothing matches", async () => {
      const result = await items.updateMany({ group: "q" }, { $set: { name: "q" } }, { upsert: true });
      expect(result.upsertedCount).to.equal(1);
      expect(await items.countDocuments({ group: "q" })).to.equal(1);
    });

    it("rejects updates without operators, unknown operators and a changed _id", async () => {
      await expectRejection(items.updateOne({ _id: "a" }, { name: "x" }), InvalidArgumentError);
      await expectRejection(items.updateOne({ _id: "a" }, {}), InvalidArgumentError);
      await expectRejection(items.updateOne({ _id: "a" }, { $frobnicate: { n: 1 } }), InvalidArgumentError);
      await expectRejection(items.updateOne({ _id: "a" }, { $set: { _id: "other" } }), InvalidArgumentError);
      expect((await items.findOne({ _id: "a" }))?.name).to.equal("alpha");
      expect(await items.findOne({ _id: "other" })).to.equal(null);
    });
  });

  describe("replaceOne", () => {
    beforeEach(async () => {
      await items.insertOne({ _id: "a", name: "alpha", n: 1, group: "x" });
    });

    it("replaces the whole document and keeps its _id", async () => {
      const result = await items.replaceOne({ name: "alpha" }, { name: "replaced", note: "only" });
      expect(result).to.include({ matchedCount: 1, modifiedCount: 1 });
      expect(await items.findOne({ _id: "a" })).to.deep.equal({ _id: "a", name: "replaced", note: "only" });
      const same = await items.replaceOne({ _id: "a" }, { _id: "a", name: "replaced", note: "only" });
      expect(same).to.include({ matchedCount: 1, modifiedCount: 0 });
    });

    it("upserts with the filter's _id, or a UUID when the filter has none", async () => {
      const pinned = await items.replaceOne({ _id: "b" }, { name: "beta" }, { upsert: true });
      expect(pinned.upsertedId).to.equal("b");
      expect(await items.findOne({ _id: "b" })).to.deep.equal({ _id: "b", name: "beta" });
      const free = await items.replaceOne({ name: "nobody" }, { name: "gamma" }, { upsert: true });
      expect(free.upsertedId).to.match(UUID);
      expect(await items.findOne({ _id: free.upsertedId ?? "" })).to.deep.equal({
        _id: free.upsertedId,
        name: "gamma",
      });
    });

    it("rejects operators in a replacement and a different _id", async () => {
      await expectRejection(
        items.replaceOne({ _id: "a" }, { $set: { n: 2 } } as never),
        InvalidArgumentError,
      );
      await expectRejection(
        items.replaceOne({ _id: "a" }, { _id: "z", name: "moved" }),
        InvalidArgumentError,
      );
      expect(await items.find({})).to.deep.equal([{ _id: "a", name: "alpha", n: 1, group: "x" }]);
    });
  });

  describe("findOneAndUpdate", () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: "a", name: "alpha", n: 1, group: "x" },
        { _id: "b", name: "beta", n: 2, group: "x" },
      ]);
    });

    it("returns the document before the update by default, and after on request", async () => {
      const before = await items.findOneAndUpdate({ _id: "a" }, { $inc: { n: 1 } });
      expect(before).to.deep.equal({ _id: "a", name: "alpha", n: 1, group: "x" });
      const after = await items.findOneAndUpdate(
        { _id: "a" },
        { $inc: { n: 1 } },
        { returnDocument: "after" },
      );
      expect(after).to.deep.equal({ _id: "a", name: "alpha", n: 3, group: "x" });
    });

    it("picks the first document in sort order and applies a projection", async () => {
      const picked = await items.findOneAndUpdate(
        { group: "x" },
        { $set: { note: "picked" } },
        { sort: { n: -1 }, returnDocument: "after", projection: { note: 1 } },
      );
      expect(picked).to.deep.equal({ _id: "b", note: "picked" });
      expect((await items.findOne({ _id: "a" }))?.note).to.equal(undefined);
    });

    it("returns null when nothing matches, and upserts on request", async () => {
      expect(await items.findOneAndUpdate({ _id: "zzz" }, { $set: { n: 9 } })).to.equal(null);
      expect(await items.countDocuments()).to.equal(2);
      const before = await items.findOneAndUpdate(
        { _id: "c" },
        { $set: { name: "gamma" } },
        { upsert: true },
      );
      expect(before).to.equal(null);
      expect(await items.findOne({ _id: "c" })).to.deep.equal({ _id: "c", name: "gamma" });
      const after = await items.findOneAndUpdate(
        { name: "delta" },
        { $setOnInsert: { n: 4 } },
        { upsert: true, returnDocument: "after" },
      );
      expect(after?._id).to.match(UUID);
      expect(after).to.include({ name: "delta", n: 4 });
    });
  });

  describe("deleteOne and deleteMany", () => {
    beforeEach(async () => {
      await items.insertMany([
        { _id: "a", name: "alpha", group: "x" },
        { _id: "b", name: "beta", group: "x" },
        { _id: "c", name: "gamma", group: "y" },
      ]);
    });

    it("deletes one match, or every match, and reports how many", async () => {
      expect(await items.deleteOne({ group: "x" })).to.deep.equal({ deletedCount: 1 });
      expect(await items.countDocuments({ group: "x" })).to.equal(1);
      expect(await items.deleteMany({ group: { $in: ["x", "y"] } })).to.deep.equal({ deletedCount: 2 });
      expect(await items.countDocuments()).to.equal(0);
      expect(await items.deleteOne({ _id: "a" })).to.deep.equal({ deletedCount: 0 });
    });

    it("lets a deleted _id be inserted again", async () => {
      await items.deleteOne({ _id: "a" });
      await items.insertOne({ _id: "a", name: "again" });
      expect((await items.findOne({ _id: "a" }))?.name).to.equal("again");
    });
  });
}
