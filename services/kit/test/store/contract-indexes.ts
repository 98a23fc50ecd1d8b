import { expect } from "chai";
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError } from "../../src/errors/index.js";
import type { Collection, StoredDocument } from "../../src/store/index.js";
import { expectRejection, sortedIds, type ContractContext, type Item } from "./contract-support.js";

interface Sample extends StoredDocument {
  hour: number;
  test: string;
  outcome?: string | string[];
}

export function defineIndexContract(context: ContractContext): void {
  let items: Collection<Item>;

  beforeEach(() => {
    items = context.fresh();
  });

  it("names an index like the driver and declares it idempotently", async () => {
    expect(await items.createIndex({ group: 1, n: -1 })).to.equal("group_1_n_-1");
    expect(await items.createIndex({ group: 1, n: -1 })).to.equal("group_1_n_-1");
    expect(await items.createIndex({ name: 1 }, { unique: true, name: "by_name" })).to.equal("by_name");
    expect(await items.createIndex({ name: 1 }, { unique: true, name: "by_name" })).to.equal("by_name");
  });

  it("refuses to redefine an index name with other keys, and bad key patterns", async () => {
    await items.createIndex({ name: 1 }, { name: "idx" });
    await expectRejection(items.createIndex({ group: 1 }, { name: "idx" }), FailedPreconditionError);
    await expectRejection(items.createIndex({}), InvalidArgumentError);
    await expectRejection(items.createIndex({ name: 2 as 1 }), InvalidArgumentError);
  });

  it("rejects an insert that breaks a unique index and keeps the stored data unchanged", async () => {
    await items.createIndex({ name: 1 }, { unique: true });
    await items.insertOne({ _id: "a", name: "alpha", n: 1 });
    await expectRejection(items.insertOne({ _id: "b", name: "alpha", n: 2 }), AlreadyExistsError);
    expect(await items.find({})).to.deep.equal([{ _id: "a", name: "alpha", n: 1 }]);
  });

  it("rejects updates, upserts and replacements that break a unique index, changing nothing", async () => {
    await items.createIndex({ name: 1 }, { unique: true });
    await items.insertMany([
      { _id: "a", name: "alpha" },
      { _id: "b", name: "beta" },
    ]);
    await expectRejection(items.updateOne({ _id: "b" }, { $set: { name: "alpha" } }), AlreadyExistsError);
    await expectRejection(items.replaceOne({ _id: "b" }, { name: "alpha" }), AlreadyExistsError);
    await expectRejection(
      items.updateOne({ _id: "c" }, { $set: { name: "alpha" } }, { upsert: true }),
      AlreadyExistsError,
    );
    await expectRejection(
      items.findOneAndUpdate({ _id: "b" }, { $set: { name: "alpha" } }),
      AlreadyExistsError,
    );
    expect(await items.find({}, { sort: { _id: 1 } })).to.deep.equal([
      { _id: "a", name: "alpha" },
      { _id: "b", name: "beta" },
    ]);
    // The key is free again once its holder moved on.
    await items.updateOne({ _id: "a" }, { $set: { name: "ALPHA" } });
    await items.updateOne({ _id: "b" }, { $set: { name: "alpha" } });
    expect((await items.findOne({ name: "alpha" }))?._id).to.equal("b");
  });

  it("enforces a compound unique index on the combination only", async () => {
    await items.createIndex({ group: 1, name: 1 }, { unique: true });
    await items.insertMany([
      { _id: "1", group: "x", name: "same" },
      { _id: "2", group: "y", name: "same" },
    ]);
    await expectRejection(items.insertOne({ _id: "3", group: "x", name: "same" }), AlreadyExistsError);
    expect(await items.countDocuments()).to.equal(2);
  });

  it("refuses to build a unique index over existing duplicates", async () => {
    await items.insertMany([
      { _id: "1", name: "dup" },
      { _id: "2", name: "dup" },
    ]);
    await expectRejection(items.createIndex({ name: 1 }, { unique: true }), AlreadyExistsError);
    await items.insertOne({ _id: "3", name: "dup" });
    expect(await items.countDocuments({ name: "dup" })).to.equal(3);
  });

  describe("queries through an index", () => {
    let samples: Collection<Sample>;
    const all: Sample[] = [];
    for (let hour = 0; hour < 48; hour++) {
      for (const test of ["t1", "t2", "t3"]) all.push({ _id: `${test}@${hour}`, hour, test });
    }

    beforeEach(async () => {
      samples = context.fresh<Sample>();
      await samples.createIndex({ hour: 1, test: 1 });
      await samples.createIndex({ test: 1 });
      await samples.insertMany(all);
      await samples.insertMany([
        { _id: "multi", hour: 10, test: "t4", outcome: ["pass", "fail"] },
        { _id: "text-hour", hour: "10" as unknown as number, test: "t5" },
      ]);
    });

    it("answers equality, $in and compound-prefix filters exactly", async () => {
      expect(await samples.countDocuments({ test: "t2" })).to.equal(48);
      expect(sortedIds(await samples.find({ hour: 10 }))).to.deep.equal(["multi", "t1@10", "t2@10", "t3@10"]);
      expect(
        sortedIds(await samples.find({ hour: { $in: [3, 4] }, test: { $in: ["t1", "t3"] } })),
      ).to.deep.equal(["t1@3", "t1@4", "t3@3", "t3@4"]);
      expect(sortedIds(await samples.find({ hour: "10" as unknown as number }))).to.deep.equal(["text-hour"]);
      expect(await samples.find({ outcome: "fail" })).to.have.length(1);
    });

    it("answers a range on the first indexed field, sorted by it", async () => {
      const window = await samples.find(
        { hour: { $gte: 40, $lt: 44 }, test: "t1" },
        { sort: { hour: 1 }, projection: { hour: 1 } },
      );
      expect(window).to.deep.equal([40, 41, 42, 43].map((hour) => ({ _id: `t1@${hour}`, hour })));
      expect(await samples.countDocuments({ hour: { $gt: 46 } })).to.equal(3);
      expect(await samples.countDocuments({ hour: { $lte: 0 } })).to.equal(3);
      expect(await samples.countDocuments({ hour: { $lt: 100 } })).to.equal(48 * 3 + 1);
    });

    it("sees updates and deletes of indexed fields", async () => {
      await samples.updateOne({ _id: "t1@5" }, { $set: { hour: 500 } });
      await samples.deleteMany({ hour: 6 });
      expect(sortedIds(await samples.find({ hour: { $gte: 5, $lte: 6 } }))).to.deep.equal(["t2@5", "t3@5"]);
      expect(sortedIds(await samples.find({ hour: 500 }))).to.deep.equal(["t1@5"]);
    });
  });
}
