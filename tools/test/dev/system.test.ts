import { expect } from "chai";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connect, type NatsConnection } from "nats";
import { freePortBlock } from "@mainline/testing";
import { startSystem, waitForHttp, type RunningSystem } from "../../src/dev/system.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("make dev: the whole system under its supervisor", function () {
  this.timeout(180_000);
  let dataDir: string;
  let system: RunningSystem | undefined;
  let ports: { gateway: number; nats: number; grpcBase: number };
  const queue = { repo: { host: "git.example", owner: "acme", name: "svc" }, targetBranch: "main" };
  const start = async () => {
    system = await startSystem({
      root,
      dataDir,
      batchRunnerWorkDir: path.join(dataDir, "batch-runner"),
      gatewayPort: ports.gateway,
      natsPort: ports.nats,
      grpcBasePort: ports.grpcBase,
      env: { LOG_LEVEL: "warn" },
      output: () => undefined,
      log: () => undefined,
    });
    expect(await waitForHttp(`${system.apiUrl}/readyz`, 90_000), "every service ready").to.equal(true);
    return system;
  };
  const post = (s: RunningSystem, route: string, body: unknown) =>
    fetch(`${s.apiUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": s.apiToken },
      body: JSON.stringify(body),
    });

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "mainline-dev-"));
    const base = await freePortBlock(8);
    ports = { gateway: base, nats: base + 1, grpcBase: base + 1 };
  });
  after(async () => {
    await system?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("serves /v1/healthz and prints a token that works", async () => {
    const s = await start();
    expect((await fetch(`${s.apiUrl}/healthz`)).status).to.equal(200);
    expect((await post(s, "/createQueue", { ...queue, concurrency: 2 })).status).to.equal(200);
  });

  it("restarts a service killed with SIGKILL, and the write acknowledged before the kill is still there", async () => {
    const s = system!;
    const coordinator = s.processes.get("queue-coordinator")!;
    const pid = coordinator.pid!;
    process.kill(pid, "SIGKILL");
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await post(s, "/getQueue", queue).catch(() => undefined);
      if (response?.status === 200 && coordinator.pid !== pid) {
        expect(await response.json()).to.include({ concurrency: 2 });
        break;
      }
      if (Date.now() > deadline) throw new Error("the queue-coordinator did not come back within 60 s");
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(coordinator.restarts).to.equal(1);
  });

  it("refuses a bus connection without credentials, such as a test command's", async () => {
    const error = await connect({ servers: system!.natsUrl, reconnect: false }).then(
      (nc) => nc.close().then(() => undefined),
      (e: { code?: string }) => e,
    );
    expect(error?.code).to.equal("AUTHORIZATION_VIOLATION");
  });

  describe("each service's NATS user may use only its own part of the bus", () => {
    const tokens = "mainline-2dgateway_api-5ftokens";
    const queues = "mainline-2dqueue-2dcoordinator_queues";
    const connections: NatsConnection[] = [];
    /** Logs in as a service, with the password make dev generated for it. */
    const as = async (service: string) => {
      const passwords = JSON.parse(
        await readFile(path.join(dataDir, "nats-passwords.json"), "utf8"),
      ) as Record<string, string>;
      const nc = await connect({
        servers: system!.natsUrl,
        user: service,
        pass: passwords[service]!,
        timeout: 5_000,
      });
      connections.push(nc);
      return nc;
    };
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => "allowed",
        (e: Error) =>
          /permission/i.test(`${e.message} ${(e as { code?: string }).code}`) ? "refused" : e.message,
      );
    after(async () => {
      await Promise.all(connections.map((nc) => nc.close()));
    });

    it("its own store: the coordinator reads the queue the first test created", async () => {
      const kv = await (await as("queue-coordinator")).jetstream().views.kv(queues, { bindOnly: true });
      const keys: string[] = [];
      for await (const key of await kv.keys()) keys.push(key);
      expect(keys).to.have.length.at.least(1);
    });

    it("the gateway cannot publish a test result", async () => {
      const js = (await as("gateway")).jetstream();
      expect(await refused(js.publish("mainline.results.test-run", new Uint8Array([1])))).to.equal("refused");
    });

    it("webhooks can neither write nor read the coordinator's store", async () => {
      const nc = await as("webhooks");
      expect(await refused(nc.jetstream().publish(`$KV.${queues}.forged`, new Uint8Array([1])))).to.equal(
        "refused",
      );
      const jsm = await nc.jetstreamManager();
      expect(
        await refused(jsm.streams.getMessage(`KV_${queues}`, { last_by_subj: `$KV.${queues}.>` })),
      ).to.equal("refused");
    });

    it("the batch-runner, which runs untrusted commands, cannot read the API tokens", async () => {
      const jsm = await (await as("batch-runner")).jetstreamManager();
      expect(
        await refused(jsm.streams.getMessage(`KV_${tokens}`, { last_by_subj: `$KV.${tokens}.>` })),
      ).to.equal("refused");
      expect(await refused(jsm.consumers.add(`KV_${tokens}`, { deliver_subject: "_INBOX.steal" }))).to.equal(
        "refused",
      );
      expect(await refused(jsm.streams.delete(`KV_${tokens}`))).to.equal("refused");
    });
  });

  it("restarts nats-server killed with SIGKILL, and the services work again", async () => {
    const s = system!;
    const pid = s.nats!.pid!;
    process.kill(pid, "SIGKILL");
    const deadline = Date.now() + 60_000;
    for (;;) {
      // A write goes through the coordinator's store, which lives on NATS (the embedded store).
      const response = await post(s, "/updateQueue", { ...queue, concurrency: 3 }).catch(() => undefined);
      if (response?.status === 200 && s.nats!.pid !== pid) break;
      if (Date.now() > deadline) throw new Error("the system did not work again within 60 s of killing NATS");
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(s.nats!.restarts).to.equal(1);
    const response = await post(s, "/getQueue", queue);
    expect(await response.json()).to.include({ concurrency: 3 });
    // Later tests expect the original settings.
    expect((await post(s, "/updateQueue", { ...queue, concurrency: 2 })).status).to.equal(200);
  });

  it("keeps the data and the token across a stop and start of the whole system", async () => {
    const token = system!.apiToken;
    await system!.stop();
    system = undefined;
    const s = await start();
    expect(s.apiToken).to.equal(token);
    const response = await post(s, "/getQueue", queue);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.include({ concurrency: 2 });
  });
});
