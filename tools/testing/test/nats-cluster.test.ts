import { expect } from "chai";
import { connect, StorageType, type NatsConnection } from "nats";
import { eventually } from "../src/eventually.js";
import { NatsCluster } from "../src/nats-cluster.js";

describe("NatsCluster fixture", function () {
  this.timeout(120_000);
  let cluster: NatsCluster;
  let nc: NatsConnection | undefined;

  before(async () => {
    cluster = await NatsCluster.start();
    await cluster.waitReady(60_000);
  });
  after(async () => {
    await nc?.close();
    await cluster?.stop();
  });

  it("runs three nodes as one JetStream cluster that places an R3 stream on all of them", async () => {
    nc = await connect(cluster.connectOptions());
    const jsm = await nc.jetstreamManager();
    // A node the leader counted as current in waitReady can miss its heartbeats on a starved machine for a moment
    // ("no suitable peers for placement, peer offline", seen at half a core): placement succeeds once it is back.
    const info = await eventually(
      () => jsm.streams.add({ name: "R3", subjects: ["r3.>"], num_replicas: 3, storage: StorageType.File }),
      30_000,
    );
    const names = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)].sort();
    expect(names).to.deep.equal(cluster.nodes.map((n) => n.name).sort());
  });

  it("keeps an R3 stream writable while one node is killed, and the node catches up after a restart", async () => {
    const js = nc!.jetstream();
    await cluster.kill(0);
    expect(cluster.pid(0)).to.equal(undefined);
    try {
      // The client may have been on the killed node: publishing retries until it is on another one.
      await eventually(() => js.publish("r3.a", new TextEncoder().encode("while down")), 30_000);
    } finally {
      // Even when publishing failed: the tests after this one need all three nodes.
      await cluster.restart(0);
    }
    await cluster.waitReady(60_000);
    const jsm = await nc!.jetstreamManager();
    const info = await jsm.streams.info("R3");
    expect(info.state.messages).to.equal(1);
  });

  it("freezes a node with SIGSTOP and thaws it with SIGCONT", async () => {
    cluster.pause(1);
    try {
      // The monitoring port still accepts connections (the kernel does); a frozen node never answers them.
      let healthy = true;
      for (let i = 0; i < 10 && healthy; i++) healthy = await cluster.nodeHealthy(1);
      expect(healthy).to.equal(false);
    } finally {
      cluster.resume(1);
    }
    await cluster.waitReady(60_000);
    expect(await cluster.nodeHealthy(1)).to.equal(true);
  });

  it("refuses a connection without credentials on every node", async () => {
    for (const url of cluster.urls) {
      const error = await connect({ servers: url, reconnect: false }).then(
        (c) => c.close().then(() => undefined),
        (e: { code?: string }) => e,
      );
      expect(error?.code).to.equal("AUTHORIZATION_VIOLATION");
    }
  });
});
