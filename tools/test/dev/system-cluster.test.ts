import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connect } from "nats";
import { freePortBlock } from "@mainline/testing";
import { startSystem, waitForHttp, type RunningSystem } from "../../src/dev/system.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** `DEV_NATS_CLUSTER=3 DEV_REPLICAS=2 make dev`: three nats-servers as one cluster, two of every service. */
describe("make dev in cluster mode: three nats-servers and two processes of every service", function () {
  this.timeout(300_000);
  let dataDir: string;
  let system: RunningSystem;
  const queue = { repo: { host: "git.example", owner: "acme", name: "svc" }, targetBranch: "main" };
  const post = (apiUrl: string, route: string, body: unknown) =>
    fetch(`${apiUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": system.apiToken },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
  /** Polls getQueue on a gateway until it answers 200, and returns how long that took. */
  const answersWithin = async (apiUrl: string, timeoutMs: number): Promise<number> => {
    const started = Date.now();
    for (;;) {
      const response = await post(apiUrl, "/getQueue", queue).catch(() => undefined);
      if (response?.status === 200) return Date.now() - started;
      if (Date.now() - started > timeoutMs)
        throw new Error(`${apiUrl} did not answer getQueue within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  /**
   * Writes through both gateways in turn (a write goes through JetStream; a read may be answered from a process's
   * copy of its store) while `fault` runs and for `afterMs` after it, and returns the longest time between two
   * successful writes.
   */
  const longestWriteGap = async (fault: () => Promise<void>, afterMs: number): Promise<number> => {
    let longest = 0;
    let lastSuccess = Date.now();
    let faultOver = false;
    let stopAt = Number.POSITIVE_INFINITY;
    const faulting = fault().finally(() => {
      faultOver = true;
      stopAt = Date.now() + afterMs;
    });
    for (let i = 0; !faultOver || Date.now() < stopAt; i += 1) {
      const body = { ...queue, concurrency: 2 + (i % 2) };
      const ok = await post(system.apiUrls[i % 2]!, "/updateQueue", body).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) {
        longest = Math.max(longest, Date.now() - lastSuccess);
        lastSuccess = Date.now();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await faulting;
    return Math.max(longest, Date.now() - lastSuccess);
  };

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "mainline-dev-cluster-"));
    // 2 gateways, 9 NATS ports (3 nodes x client, route, monitoring), 10 gRPC ports (2 x 5 services).
    const base = await freePortBlock(2 + 9 + 10);
    system = await startSystem({
      root,
      dataDir,
      batchRunnerWorkDir: path.join(dataDir, "batch-runner"),
      gatewayPort: base,
      natsPort: base + 2,
      grpcBasePort: base + 10,
      natsCluster: 3,
      replicas: 2,
      env: { LOG_LEVEL: "warn" },
      output: () => undefined,
      log: () => undefined,
    });
  });
  after(async () => {
    await system?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("runs two processes of every service against all three nodes, and both gateways are ready", async () => {
    expect(system.natsUrl.split(",")).to.have.length(3);
    expect(system.nats).to.equal(undefined);
    expect([...system.processes.keys()].sort()).to.deep.equal(
      ["batch-runner", "flaky-analytics", "gateway", "metrics", "queue-coordinator", "webhooks"]
        .flatMap((s) => [s, `${s}-2`])
        .sort(),
    );
    expect(system.apiUrls).to.have.length(2);
    for (const apiUrl of system.apiUrls)
      expect(await waitForHttp(`${apiUrl}/readyz`, 180_000), `${apiUrl}/readyz`).to.equal(true);
  });

  it("answers on one gateway what was written through the other", async () => {
    const [first, second] = system.apiUrls;
    expect((await post(first!, "/createQueue", { ...queue, concurrency: 2 })).status).to.equal(200);
    const response = await post(second!, "/getQueue", queue);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.include({ concurrency: 2 });
  });

  it("keeps the bus to its users on every node", async () => {
    for (const url of system.natsUrl.split(",")) {
      const error = await connect({ servers: url, reconnect: false }).then(
        (nc) => nc.close().then(() => undefined),
        (e: { code?: string }) => e,
      );
      expect(error?.code).to.equal("AUTHORIZATION_VIOLATION");
    }
  });

  it("keeps taking writes while a nats-server is down, and takes the node back", async () => {
    const cluster = system.natsCluster!;
    const gapMs = await longestWriteGap(async () => {
      await cluster.down(0);
      expect(cluster.pid(0)).to.equal(undefined);
      await new Promise((r) => setTimeout(r, 15_000));
      await cluster.up(0);
    }, 5_000);
    console.log(`      longest gap without a successful write, node killed for 15 s: ${gapMs} ms`);
    // Measured 5.4 s on a quiet machine and 15.4 s inside a loaded `make test`; the goal (under 5 s) is
    // reported, not asserted (tools/test/system/cluster-faults.test.ts prints it too). A write path that waits for
    // the node to come back would pass 25 s.
    expect(gapMs).to.be.below(25_000);
    await cluster.waitReady(60_000);
    const response = await post(system.apiUrls[1]!, "/getQueue", queue);
    expect(response.status).to.equal(200);
  });

  it("keeps taking writes while a nats-server is frozen (SIGSTOP) and after it thaws", async () => {
    const cluster = system.natsCluster!;
    const gapMs = await longestWriteGap(async () => {
      cluster.pause(2);
      await new Promise((r) => setTimeout(r, 15_000));
      cluster.resume(2);
    }, 5_000);
    console.log(`      longest gap without a successful write, node frozen for 15 s: ${gapMs} ms`);
    // 10-15 s measured: JetStream elects new stream leaders (4-9 s in nats-server 2.10) while requests to the
    // frozen one time out (5 s); a write path that waits for the thaw would pass 25 s.
    expect(gapMs).to.be.below(25_000);
    await cluster.waitReady(60_000);
  });

  it("restarts a nats-server killed from outside, as it restarts a service", async () => {
    const cluster = system.natsCluster!;
    const pid = cluster.pid(1)!;
    process.kill(pid, "SIGKILL");
    const deadline = Date.now() + 60_000;
    while (cluster.pid(1) === undefined || cluster.pid(1) === pid) {
      if (Date.now() > deadline) throw new Error("node 1 was not restarted within 60 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    await cluster.waitReady(60_000);
    expect(cluster.restarts[1]).to.equal(1);
  });

  it("keeps answering when one replica of the queue-coordinator is killed", async () => {
    const coordinator = system.processes.get("queue-coordinator")!;
    process.kill(coordinator.pid!, "SIGKILL");
    for (const apiUrl of system.apiUrls) await answersWithin(apiUrl, 30_000);
  });
});
