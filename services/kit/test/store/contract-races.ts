import { expect } from "chai";
import { AlreadyExistsError } from "../../src/errors/index.js";
import type { Collection, StoredDocument } from "../../src/store/index.js";
import type { RaceContext } from "./contract-support.js";

/** Rounds per race; more finds rarer interleavings (STORE_RACE_ROUNDS=1000 for a long soak). */
const ROUNDS = Number(process.env.STORE_RACE_ROUNDS ?? 100);

interface Keyed extends StoredDocument {
  key: string;
  n?: number;
  status?: string;
  by?: string;
}

type Outcome<T> = PromiseSettledResult<T>;

function rejections(outcomes: readonly Outcome<unknown>[]): unknown[] {
  return outcomes
    .filter((o): o is PromiseRejectedResult => o.status === "rejected")
    .map((o): unknown => o.reason);
}

/**
 * Two store instances (two connections, as two replicas of a service have) on one collection,
 * each round starting the same operation on both at once: every rule that holds in one process
 * must hold across them.
 */
export function defineRaceContract(context: RaceContext): void {
  let a: Collection<Keyed>;
  let b: Collection<Keyed>;
  let settle: () => Promise<Collection<Keyed>>;
  const reread = () => settle();

  beforeEach(async () => {
    const racers = await context.racers<Keyed>();
    ({ a, b } = racers);
    settle = () => racers.reread();
  });

  it(`lets exactly one of two instances insert a unique key (${ROUNDS} rounds)`, async () => {
    await Promise.all([
      a.createIndex({ key: 1 }, { unique: true }),
      b.createIndex({ key: 1 }, { unique: true }),
    ]);
    for (let round = 0; round < ROUNDS; round++) {
      const outcomes = await Promise.allSettled([
        a.insertOne({ _id: `a${round}`, key: `k${round}` }),
        b.insertOne({ _id: `b${round}`, key: `k${round}` }),
      ]);
      const lost = rejections(outcomes);
      expect(lost, `round ${round}`).to.have.length(1);
      expect(lost[0], `round ${round}`).to.be.instanceOf(AlreadyExistsError);
    }
    expect(await (await reread()).countDocuments()).to.equal(ROUNDS);
  });

  it(`lets exactly one of two instances insert an _id (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const outcomes = await Promise.allSettled([
        a.insertOne({ _id: `same${round}`, key: "a" }),
        b.insertMany([{ _id: `same${round}`, key: "b" }]),
      ]);
      const lost = rejections(outcomes);
      expect(lost, `round ${round}`).to.have.length(1);
      expect(lost[0], `round ${round}`).to.be.instanceOf(AlreadyExistsError);
    }
    expect(await (await reread()).countDocuments()).to.equal(ROUNDS);
  });

  it(`lets exactly one of two instances replace a document at the revision both read (${ROUNDS} rounds)`, async () => {
    await a.insertOne({ _id: "queue", key: "q", n: 0 });
    for (let round = 0; round < ROUNDS; round++) {
      // The queue-coordinator's save: a replacement filtered on the revision it was computed from.
      const [fromA, fromB] = await Promise.all([
        a.replaceOne({ _id: "queue", n: round }, { key: "a", n: round + 1 }),
        b.replaceOne({ _id: "queue", n: round }, { key: "b", n: round + 1 }),
      ]);
      expect(fromA.matchedCount + fromB.matchedCount, `round ${round}`).to.equal(1);
    }
    expect((await (await reread()).findOne({ _id: "queue" }))?.n).to.equal(ROUNDS);
  });

  it(`lets exactly one of two instances move a document onto a unique key (${ROUNDS} rounds)`, async () => {
    await Promise.all([
      a.createIndex({ key: 1 }, { unique: true }),
      b.createIndex({ key: 1 }, { unique: true }),
    ]);
    for (let round = 0; round < ROUNDS; round++) {
      await a.insertMany([
        { _id: `a${round}`, key: `a${round}` },
        { _id: `b${round}`, key: `b${round}` },
      ]);
      const outcomes = await Promise.allSettled([
        a.updateOne({ _id: `a${round}` }, { $set: { key: `k${round}` } }),
        b.findOneAndUpdate({ _id: `b${round}` }, { $set: { key: `k${round}` } }),
      ]);
      const lost = rejections(outcomes);
      expect(lost, `round ${round}`).to.have.length(1);
      expect(lost[0], `round ${round}`).to.be.instanceOf(AlreadyExistsError);
    }
    const settled = await reread();
    expect(await settled.countDocuments({ key: /^k/ })).to.equal(ROUNDS);
    // The loser kept its old key, and the winner's old key is free again.
    expect(await settled.countDocuments()).to.equal(2 * ROUNDS);
    await a.insertOne({
      _id: "late",
      key: (await settled.findOne({ _id: "a0" }))?.key === "k0" ? "a0" : "b0",
    });
  });

  it(`counts every $inc of two instances on one document (${ROUNDS} rounds)`, async () => {
    await a.insertOne({ _id: "counter", key: "c", n: 0 });
    const seen: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const [fromA, fromB] = await Promise.all([
        a.updateOne({ _id: "counter" }, { $inc: { n: 1 } }),
        b.findOneAndUpdate({ _id: "counter" }, { $inc: { n: 1 } }, { returnDocument: "after" }),
      ]);
      expect(fromA.modifiedCount, `round ${round}`).to.equal(1);
      seen.push(fromB?.n ?? -1);
    }
    expect((await (await reread()).findOne({ _id: "counter" }))?.n).to.equal(2 * ROUNDS);
    // Each value B read back is one no other $inc produced.
    expect(new Set(seen).size).to.equal(ROUNDS);
  });

  it(`gives a job to exactly one of two claiming instances (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await a.insertOne({ _id: `job${round}`, key: `job${round}`, status: "pending" });
      const claim = (c: Collection<Keyed>, by: string) =>
        c.findOneAndUpdate(
          { status: "pending" },
          { $set: { status: "claimed", by } },
          { returnDocument: "after" },
        );
      const claims = await Promise.all([claim(a, "a"), claim(b, "b")]);
      const winners = claims.filter((c) => c !== null);
      expect(winners, `round ${round}`).to.have.length(1);
      expect(winners[0]?._id, `round ${round}`).to.equal(`job${round}`);
    }
    expect(await (await reread()).countDocuments({ status: "claimed" })).to.equal(ROUNDS);
  });

  it(`hands ${ROUNDS} jobs to four callers on each instance, each job once`, async () => {
    await a.insertMany(
      [...Array(ROUNDS).keys()].map((i) => ({ _id: `job${i}`, key: `job${i}`, status: "pending" })),
    );
    const claimed: string[] = [];
    const claimer = async (c: Collection<Keyed>, by: string) => {
      for (;;) {
        const job = await c.findOneAndUpdate({ status: "pending" }, { $set: { status: "claimed", by } });
        if (job === null) return;
        claimed.push(job._id);
      }
    };
    await Promise.all(
      ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"].map((by) => claimer(by < "b" ? a : b, by)),
    );
    expect(claimed).to.have.length(ROUNDS);
    expect(new Set(claimed).size).to.equal(ROUNDS);
  });

  it(`makes one document of two instances' upserts on one unique key (${ROUNDS} rounds)`, async () => {
    await Promise.all([
      a.createIndex({ key: 1 }, { unique: true }),
      b.createIndex({ key: 1 }, { unique: true }),
    ]);
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all([
        a.updateOne({ key: `u${round}` }, { $inc: { n: 1 } }, { upsert: true }),
        b.findOneAndUpdate({ key: `u${round}` }, { $inc: { n: 1 } }, { upsert: true }),
      ]);
    }
    const settled = await reread();
    expect(await settled.countDocuments()).to.equal(ROUNDS);
    expect(await settled.countDocuments({ n: 2 })).to.equal(ROUNDS);
  });

  it(`lets a delete and an update of two instances both finish, the delete last (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await a.insertOne({ _id: `d${round}`, key: `d${round}`, n: 0 });
      const [removed, updated] = await Promise.all([
        a.deleteOne({ _id: `d${round}` }),
        b.updateOne({ _id: `d${round}` }, { $inc: { n: 1 } }),
      ]);
      expect(removed.deletedCount, `round ${round}`).to.equal(1);
      expect(updated.matchedCount, `round ${round}`).to.be.oneOf([0, 1]);
    }
    expect(await (await reread()).countDocuments()).to.equal(0);
  });

  it(`finds at once a document another instance just created (${ROUNDS} rounds)`, async () => {
    // A replica answering a client's next call (createQueue, then updateQueue on another replica) must see it.
    for (let round = 0; round < ROUNDS; round++) {
      await a.insertOne({ _id: `n${round}`, key: `n${round}` });
      expect(await b.findOne({ _id: `n${round}` }), `round ${round}`).to.not.equal(null);
    }
  });

  it(`decides on another instance's acknowledged write at once (${ROUNDS} rounds)`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await a.insertOne({ _id: `o${round}`, key: `o${round}`, status: "open" });
      const closed = await b.findOneAndUpdate(
        { _id: `o${round}`, status: "open" },
        { $set: { status: "closed" } },
        { returnDocument: "after" },
      );
      expect(closed?.status, `round ${round}`).to.equal("closed");
      await a.updateOne({ _id: `o${round}` }, { $set: { n: round } });
      const counted = await b.updateMany({ n: round }, { $set: { by: "b" } });
      expect(counted.matchedCount, `round ${round}`).to.equal(1);
    }
  });
}
