import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect, type NatsConnection } from "nats";
import { eventually, NatsServer, skipBecause } from "@mainline/testing";
import {
  ConflictError,
  FailedPreconditionError,
  InvalidArgumentError,
  UnavailableError,
} from "../../src/errors/index.js";
import {
  bucketName,
  EmbeddedStore,
  MongodbStore,
  openStore,
  type StoredDocument,
} from "../../src/store/index.js";
import { keyOfId, reservationKey } from "../../src/store/bucket-naming.js";
import { keyOfValue } from "../../src/store/index-value.js";
import { expectRejection } from "./contract-support.js";
import { defineStoreContract } from "./store-contract.js";

interface Counter extends StoredDocument {
  value: number;
  at?: Date;
}

describe("store", () => {
  describe("embedded adapter", () => {
    let server: NatsServer;
    let nats: NatsConnection;

    before(async () => {
      server = await NatsServer.start();
      nats = await connect(server.connectOptions());
    });
    after(async () => {
      await nats.close();
      await server.stop();
    });

    describe("contract", () => {
      // Each peer has its own connection, as another replica of a service has.
      const peers: { store: EmbeddedStore; connection: NatsConnection }[] = [];
      after(async () => {
        for (const { store, connection } of peers.splice(0)) {
          await store.close();
          await connection.close();
        }
      });
      defineStoreContract({
        open: () => Promise.resolve(new EmbeddedStore({ nats, database: "contract" })),
        async openPeer() {
          const connection = await connect(server.connectOptions());
          const store = new EmbeddedStore({ nats: connection, database: "contract" });
          peers.push({ store, connection });
          return store;
        },
      });
    });

    it("keeps an acknowledged write when the process drops its connection without closing the store", async () => {
      const doomed = await connect(server.connectOptions());
      const first = new EmbeddedStore({ nats: doomed, database: "crash" });
      const counters = first.collection<Counter>("counters");
      await counters.insertMany([
        { _id: "kept", value: 1, at: new Date("2024-05-01T10:00:00Z") },
        { _id: "gone", value: 2 },
      ]);
      await counters.updateOne({ _id: "kept" }, { $inc: { value: 41 } });
      await counters.deleteOne({ _id: "gone" });
      await doomed.close(); // no store.close(): the store is simply abandoned

      const second = new EmbeddedStore({ nats, database: "crash" });
      const reloaded = await second.collection<Counter>("counters").find({});
      expect(reloaded).to.deep.equal([{ _id: "kept", value: 42, at: new Date("2024-05-01T10:00:00Z") }]);
      await second.close();
    });

    it("keeps its data when nats-server is killed and restarted on the same store directory", async () => {
      const storeDir = await mkdtemp(path.join(tmpdir(), "mainline-store-"));
      let own = await NatsServer.start({ storeDir });
      try {
        let connection = await connect(own.connectOptions());
        const before = new EmbeddedStore({ nats: connection, database: "restart" });
        await before.collection<Counter>("counters").insertOne({ _id: "c1", value: 7 });
        await before.collection<Counter>("counters").updateOne({ _id: "c1" }, { $set: { value: 8 } });
        await connection.close();
        await own.stop("SIGKILL");

        own = await NatsServer.start({ storeDir });
        connection = await connect(own.connectOptions());
        const after = new EmbeddedStore({ nats: connection, database: "restart" });
        const counters = after.collection<Counter>("counters");
        expect(await counters.find({})).to.deep.equal([{ _id: "c1", value: 8 }]);
        // Revisions reloaded too: the next compare-and-set write succeeds.
        await counters.updateOne({ _id: "c1" }, { $inc: { value: 1 } });
        expect((await counters.findOne({ _id: "c1" }))?.value).to.equal(9);
        await after.close();
        await connection.close();
      } finally {
        await own.stop();
        await rm(storeDir, { recursive: true, force: true });
      }
    });

    it("reclaims a unique key a dead writer left reserved, and fences that writer's late write", async () => {
      interface Named extends StoredDocument {
        name: string;
      }
      const kv = await nats.jetstream().views.kv(bucketName("stale", "names"), { history: 1 });
      // A writer reserved "ada" for document "ghost" and died before writing it; another reserved
      // "bob" for "x" and died before writing x (which will hold "ada").
      await kv.create(reservationKey("name_1", keyOfValue("ada")), JSON.stringify({ id: "ghost" }));
      await kv.create(reservationKey("name_1", keyOfValue("bob")), JSON.stringify({ id: "x" }));

      const patient = new EmbeddedStore({ nats, database: "stale", reservationGraceMs: 60_000 });
      const waiting = patient.collection<Named>("names");
      await waiting.createIndex({ name: 1 }, { unique: true });
      // Young, the reservation may be a write still on its way: a retryable conflict, nothing written.
      await expectRejection(waiting.insertOne({ _id: "x", name: "ada" }), ConflictError);
      expect(await waiting.countDocuments()).to.equal(0);

      const store = new EmbeddedStore({ nats, database: "stale", reservationGraceMs: 0 });
      const names = store.collection<Named>("names");
      await names.createIndex({ name: 1 }, { unique: true });
      await names.insertOne({ _id: "x", name: "ada" });
      await names.insertOne({ _id: "y", name: "bob" });
      // The dead writer's write, decided before the reclaim, can no longer land.
      const late = kv.put(keyOfId("ghost"), JSON.stringify({ _id: "ghost", name: "ada" }), {
        previousSeq: 0,
      });
      expect(
        await late.then(
          () => "written",
          () => "refused",
        ),
      ).to.equal("refused");
      // Reservations are bucket entries, never documents.
      const reloaded = new EmbeddedStore({ nats, database: "stale" }).collection<Named>("names");
      expect(await reloaded.find({}, { sort: { _id: 1 } })).to.deep.equal([
        { _id: "x", name: "ada" },
        { _id: "y", name: "bob" },
      ]);
      await Promise.all([patient.close(), store.close()]);
    });

    it("shows another process's writes and deletes to a collection loaded before them", async () => {
      const a = new EmbeddedStore({ nats, database: "follow" }).collection<Counter>("counters");
      const b = new EmbeddedStore({ nats, database: "follow" }).collection<Counter>("counters");
      await b.createIndex({ value: 1 });
      expect(await b.countDocuments()).to.equal(0); // b loads the empty bucket here
      await a.insertMany([
        { _id: "x", value: 1 },
        { _id: "y", value: 2 },
      ]);
      await a.updateOne({ _id: "x" }, { $set: { value: 7 } });
      await a.deleteOne({ _id: "y" });
      await eventually(async () => {
        expect(await b.find({}, { sort: { _id: 1 } })).to.deep.equal([{ _id: "x", value: 7 }]);
        // Indexes follow too: the old value no longer finds the document.
        expect(await b.find({ value: 1 })).to.deep.equal([]);
      });
      // b writes on top of what it followed, with no conflict to recover from.
      await b.updateOne({ _id: "x" }, { $inc: { value: 1 } });
      await eventually(async () => expect((await a.findOne({ _id: "x" }))?.value).to.equal(8));
    });

    it("keeps awkward ids and collection names apart and intact across a reload", async () => {
      const ids = ["a/b.c", "é ü", "x".repeat(300), "-_=."];
      const first = new EmbeddedStore({ nats, database: "names" });
      await first
        .collection<Counter>("test.results")
        .insertMany(ids.map((id, value) => ({ _id: id, value })));
      await first.collection<Counter>("test_results").insertOne({ _id: "other", value: 0 });
      const second = new EmbeddedStore({ nats, database: "names" });
      const reloaded = await second.collection<Counter>("test.results").find({}, { sort: { value: 1 } });
      expect(reloaded.map((d) => d._id)).to.deep.equal(ids);
      expect(await second.collection<Counter>("test_results").countDocuments()).to.equal(1);
      expect(bucketName("names", "test.results")).to.not.equal(bucketName("names", "test_results"));
      expect(bucketName("names", "test.results")).to.match(/^[A-Za-z0-9_-]+$/);
    });

    it("stores ids far longer than a NATS subject may be, follows and reloads them, and keeps the connection", async () => {
      // A 5,000-character id as a plain key would pass NATS's 4 KiB protocol line, and NATS closes the connection.
      const long = (c: string) => `org#github.com/acme/${c.repeat(5000)}#main`;
      const a = new EmbeddedStore({ nats, database: "long-ids" }).collection<Counter>("queues");
      const b = new EmbeddedStore({ nats, database: "long-ids" }).collection<Counter>("queues");
      expect(await b.countDocuments()).to.equal(0);
      await a.insertMany([
        { _id: long("a"), value: 1 },
        { _id: long("b"), value: 2 },
        { _id: "short", value: 3 },
      ]);
      await a.updateOne({ _id: long("a") }, { $inc: { value: 10 } });
      expect((await a.findOne({ _id: long("a") }))?.value).to.equal(11);
      await eventually(async () => expect((await b.findOne({ _id: long("a") }))?.value).to.equal(11));
      await b.deleteOne({ _id: long("b") });
      await eventually(async () => expect(await a.findOne({ _id: long("b") })).to.equal(null));

      const reloaded = new EmbeddedStore({ nats, database: "long-ids" }).collection<Counter>("queues");
      const ids = (await reloaded.find({}, { sort: { value: 1 } })).map((d) => d._id);
      expect(ids).to.deep.equal(["short", long("a")]);
      expect(nats.isClosed()).to.equal(false);
    });

    it("fails with UnavailableError when NATS is gone, and changes nothing in memory", async () => {
      const connection = await connect({ ...server.connectOptions(), reconnect: false });
      const counters = new EmbeddedStore({ nats: connection, database: "offline" }).collection<Counter>("c");
      await counters.insertOne({ _id: "c", value: 1 });
      await connection.close();
      await expectRejection(counters.updateOne({ _id: "c" }, { $set: { value: 2 } }), UnavailableError);
      expect((await counters.findOne({ _id: "c" }))?.value).to.equal(1);
    });

    it("refuses operations after close", async () => {
      const store = new EmbeddedStore({ nats, database: "closed" });
      const counters = store.collection<Counter>("c");
      await counters.insertOne({ _id: "c", value: 1 });
      await store.close();
      await expectRejection(counters.findOne({ _id: "c" }), FailedPreconditionError);
    });

    it("openStore picks the embedded adapter without a MongoDB URI and needs NATS for it", async () => {
      const store = await openStore({ database: "opened", nats });
      expect(store).to.be.instanceOf(EmbeddedStore);
      await store.close();
      await expectRejection(openStore({ database: "opened" }), InvalidArgumentError);
    });
  });

  const mongodbUri = process.env.MONGODB_URI;
  if (mongodbUri) {
    describe("mongodb adapter", () => {
      const database = `mainline-test-${randomUUID().slice(0, 8)}`;
      const peers: MongodbStore[] = [];
      after(async () => {
        for (const peer of peers.splice(0)) await peer.close();
      });
      defineStoreContract({
        open: () => MongodbStore.connect(mongodbUri, database),
        async openPeer() {
          const peer = await MongodbStore.connect(mongodbUri, database);
          peers.push(peer);
          return peer;
        },
        cleanup: (store) => (store as MongodbStore).dropDatabase(),
      });
    });
  } else {
    describe("mongodb adapter", () => {
      it("runs the store contract against MongoDB", function () {
        skipBecause(this, "MONGODB_URI is not set");
      });
    });
  }
});

describe("mongodb adapter without a server", () => {
  it("reports an unreachable server as UnavailableError", async () => {
    const unreachable = MongodbStore.connect("mongodb://127.0.0.1:9/", "never", {
      serverSelectionTimeoutMS: 200,
    });
    await expectRejection(unreachable, UnavailableError);
  });

  it("reports a malformed URI as InvalidArgumentError", async () => {
    await expectRejection(MongodbStore.connect("http://not-mongo", "never"), InvalidArgumentError);
  });
});
