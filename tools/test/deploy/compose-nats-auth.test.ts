import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "nats";
import { provisionMainlineStreams } from "@mainline/kit/streams/index";
import { freePort, NatsServer } from "@mainline/testing";
import { readYaml, repoRoot, runnableServices } from "./deploy-files.js";

// docker-compose's NATS, run with the real nats-server and the same config file and environment: every
// service logs in with its own user and can use JetStream; a client without credentials is refused.

interface ComposeFile {
  services: Record<string, { environment?: Record<string, string | number> }>;
}

/** `${NAME:-default}` as docker compose resolves it with NAME unset. */
const composeDefault = (value: string | number | undefined): string =>
  String(value ?? "").replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");

describe("docker-compose: NATS requires each service's credentials", function () {
  this.timeout(20_000);
  const compose = readYaml<ComposeFile>("docker-compose.yml");
  let server: ChildProcess | undefined;
  let url: string;
  let storeDir: string;

  before(async () => {
    const binary = NatsServer.requireInstalled();
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    storeDir = await mkdtemp(join(tmpdir(), "mainline-compose-nats-"));
    const natsEnv = Object.fromEntries(
      Object.entries(compose.services.nats?.environment ?? {}).map(([k, v]) => [k, composeDefault(v)]),
    );
    const command = (compose.services.nats as { command?: string[] }).command ?? [];
    const args = command.map((a) =>
      a === "/etc/nats/nats.conf" ? join(repoRoot, "deploy/docker/nats.conf") : a,
    );
    server = spawn(
      binary,
      [...args.map((a) => (a === "/data" ? storeDir : a)), "--port", String(port), "--http_port", "-1"],
      {
        env: { ...process.env, ...natsEnv },
        stdio: "ignore",
      },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = await connect({ servers: url, reconnect: false }).catch((e: { code?: string }) => e);
      if ("code" in probe && probe.code === "AUTHORIZATION_VIOLATION") break;
      if (Date.now() > deadline) throw new Error("the compose nats-server did not come up");
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    server?.kill("SIGTERM");
    if (storeDir) await rm(storeDir, { recursive: true, force: true });
  });

  it("refuses a client without credentials", async () => {
    const error = await connect({ servers: url, reconnect: false }).then(
      (nc) => nc.close().then(() => undefined),
      (e: { code?: string }) => e,
    );
    expect(error?.code).to.equal("AUTHORIZATION_VIOLATION");
  });

  for (const name of runnableServices()) {
    it(`lets ${name} in with its own user, to JetStream`, async () => {
      const env = compose.services[name]?.environment ?? {};
      expect(env.NATS_USER).to.equal(name);
      const nc = await connect({
        servers: url,
        user: String(env.NATS_USER),
        pass: composeDefault(env.NATS_PASSWORD),
        reconnect: false,
      });
      try {
        const info = await (await nc.jetstreamManager()).getAccountInfo();
        expect(info.limits).to.be.an("object");
      } finally {
        await nc.close();
      }
    });
  }
  it("gives each service only its own part of the bus: the gateway cannot publish a test result", async () => {
    const login = (name: string) =>
      connect({
        servers: url,
        user: name,
        pass: composeDefault(compose.services[name]?.environment?.NATS_PASSWORD),
        reconnect: false,
      });
    const coordinator = await login("queue-coordinator");
    const gateway = await login("gateway");
    try {
      await provisionMainlineStreams(await coordinator.jetstreamManager());
      await coordinator.jetstream().publish("mainline.jobs.test-run", new Uint8Array([1]));
      const error = await gateway
        .jetstream()
        .publish("mainline.results.test-run", new Uint8Array([1]))
        .then(
          () => undefined,
          (e: { code?: string }) => e,
        );
      expect(error?.code).to.equal("PERMISSIONS_VIOLATION");
    } finally {
      await Promise.all([coordinator.close(), gateway.close()]);
    }
  });
});
