import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { NatsCluster } from "@mainline/testing";
import { bucketName, EmbeddedStore, type StoredDocument } from "../../src/store/index.js";

interface Counter extends StoredDocument {
  value: number;
}

/**
 * The store on a three-node cluster while the node leading its bucket dies: the other two elect a new leader
 * (4-9 s in nats-server 2.10), and a write in flight meanwhile must land once, as soon as they have, instead of
 * failing after the client's 5 s wait or landing twice when sent again.
 */
describe("store: writes through the loss of the bucket's stream leader", function () {
  this.timeout(180_000);
  let cluster: NatsCluster;
  const connections: NatsConnection[] = [];
  const stores: EmbeddedStore[] = [];

  /** An instance as a service replica opens it (service-runtime's connection options). */
  async function instance(): Promise<EmbeddedStore> {
    const nats = await connect({
      ...cluster.connectOptions(),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      pingInterval: 1_000,
      maxPingOut: 2,
      timeout: 2_000,
    });
    connections.push(nats);
    const store = new EmbeddedStore({ nats, database: "leader-loss", replicas: 3 });
    stores.push(store);
    return store;
  }

  /** SIGKILLs the node leading the collection's bucket; returns its index. */
  async function killBucketLeader(collection: string): Promise<number> {
    const jsm = await connections[0]!.jetstreamManager();
    const { cluster: info } = await jsm.streams.info(`KV_${bucketName("leader-loss", collection)}`);
    const leader = cluster.nodes.findIndex((n) => n.name === info?.leader);
    expect(leader, `the bucket's leader (${info?.leader})`).to.be.at.least(0);
    await cluster.kill(leader);
    return leader;
  }

  beforeEach(async () => {
    cluster = await NatsCluster.start({ size: 3 });
    await cluster.waitReady(60_000);
  });

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const nats of connections.splice(0)) await nats.close();
    await cluster.stop();
  });

  it("acknowledges a write made right after the leader died, once the others elected a new one", async () => {
    const [first, second] = [await instance(), await instance()];
    const counters = first.collection<Counter>("counters");
    await counters.insertOne({ _id: "c", value: 1 });

    await killBucketLeader("counters");
    const startedAt = Date.now();
    const result = await counters.updateOne({ _id: "c" }, { $inc: { value: 1 } });
    const tookMs = Date.now() - startedAt;

    expect(result.modifiedCount).to.equal(1);
    // The election alone takes 4-9 s; the write follows it within about a second, not a timeout later.
    expect(tookMs, "time to the acknowledgement").to.be.below(12_000);
    await second.collection<Counter>("counters").updateOne({ _id: "c" }, { $inc: { value: 0 } });
    expect(await second.collection<Counter>("counters").findOne({ _id: "c" })).to.deep.equal({
      _id: "c",
      value: 2,
    });
  });

  it("counts every $inc of two instances exactly once while the leader dies under them", async () => {
    const [first, second] = [await instance(), await instance()];
    await first.collection<Counter>("counters").insertOne({ _id: "c", value: 0 });
    const outcomes: string[] = [];
    const increments = (store: EmbeddedStore) =>
      (async () => {
        const counters = store.collection<Counter>("counters");
        for (let i = 0; i < 15; i++) {
          const outcome = await counters.updateOne({ _id: "c" }, { $inc: { value: 1 } }).then(
            (r) => (r.modifiedCount === 1 ? "counted" : "unchanged"),
            (error: Error) => `${error.name}: ${error.message}`,
          );
          outcomes.push(outcome);
        }
      })();
    const running = [increments(first), increments(second)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    await killBucketLeader("counters");
    await Promise.all(running);

    expect(outcomes.filter((o) => o !== "counted")).to.deep.equal([]);
    const counters = second.collection<Counter>("counters");
    await counters.updateOne({ _id: "c" }, { $inc: { value: 0 } });
    expect((await counters.findOne({ _id: "c" }))?.value).to.equal(30);
  });
});
