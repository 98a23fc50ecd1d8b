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

  // Writes through a killed or frozen nats-server, and the gaps they leave, are measured under a whole merge-queue
  // workload by tools/test/system/cluster-faults.test.ts.

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
