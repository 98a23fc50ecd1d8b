import { expect } from "chai";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "nats";
import { provisionMainlineStreams } from "@mainline/kit/streams/index";
import { freePort, NatsServer } from "@mainline/testing";
import { renderChart, runnableServices, type JsonObject, type Manifest } from "./deploy-files.js";
import { natsWithAuthorization } from "./nats-with-config.js";

// The chart gives every component its own NATS user and password, and renders the NATS authorization block
// for them; a real nats-server configured with that block lets each component in and refuses anyone else.

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
const componentOf = (m: Manifest) => m.metadata.labels?.["app.kubernetes.io/component"] ?? "";
const envOf = (d: Manifest): EnvVar[] =>
  (d.spec as { template: { spec: { containers: { env?: EnvVar[] }[] } } }).template.spec.containers[0]?.env ??
  [];
const decode = (value: unknown) => Buffer.from(String(value), "base64").toString("utf8");

describe("Helm chart: NATS credentials per component", function () {
  this.timeout(60_000);
  const manifests = renderChart("ci/default-values.yaml");
  const secret = manifests.find((m) => m.kind === "Secret")!;
  const data = secret.data as JsonObject;
  let server: ChildProcess | undefined;
  let dir: string | undefined;
  let url: string;

  before(async () => {
    NatsServer.requireInstalled();
    dir = await mkdtemp(join(tmpdir(), "mainline-helm-nats-"));
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    await writeFile(join(dir, "authorization.conf"), decode(data["nats-authorization.conf"]));
    server = await natsWithAuthorization({
      configFile: join(dir, "nats.conf"),
      port,
      storeDir: join(dir, "js"),
      include: "./authorization.conf",
    });
  });
  after(async () => {
    // The server writes its store while it shuts down: remove the folder once it has exited.
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  });

  it("sets NATS_USER to the component and NATS_PASSWORD from its key in the chart's Secret", () => {
    const deployments = manifests.filter((m) => m.kind === "Deployment");
    expect(deployments.map(componentOf).sort()).to.deep.equal(runnableServices());
    for (const deployment of deployments) {
      const name = componentOf(deployment);
      const env = envOf(deployment);
      expect(env.find((e) => e.name === "NATS_USER")?.value, name).to.equal(name);
      const ref = env.find((e) => e.name === "NATS_PASSWORD")?.valueFrom?.secretKeyRef;
      expect(ref, name).to.deep.equal({ name: secret.metadata.name, key: `nats-password-${name}` });
      expect(decode(data[`nats-password-${name}`]).length, name).to.be.at.least(32);
    }
  });

  it("refuses a client without credentials", async () => {
    const error = await connect({ servers: url, reconnect: false }).then(
      (nc) => nc.close().then(() => undefined),
      (e: { code?: string }) => e,
    );
    expect(error?.code).to.equal("AUTHORIZATION_VIOLATION");
  });

  for (const name of runnableServices()) {
    it(`lets ${name} in with its password, to JetStream`, async () => {
      const nc = await connect({
        servers: url,
        user: name,
        pass: decode(data[`nats-password-${name}`]),
        reconnect: false,
      });
      try {
        expect((await (await nc.jetstreamManager()).getAccountInfo()).limits).to.be.an("object");
      } finally {
        await nc.close();
      }
    });
  }

  it("gives each component only its own part of the bus: the gateway cannot publish a test result", async () => {
    const login = (name: string) =>
      connect({ servers: url, user: name, pass: decode(data[`nats-password-${name}`]), reconnect: false });
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

  it("gives no component NATS credentials when nats.auth is false", () => {
    const plain = renderChart("ci/default-values.yaml", "nats.auth=false");
    const deployments = plain.filter((m) => m.kind === "Deployment");
    expect(deployments.map(componentOf).sort()).to.deep.equal(runnableServices());
    for (const deployment of deployments)
      expect(envOf(deployment).map((e) => e.name)).to.not.include.members(["NATS_USER", "NATS_PASSWORD"]);
  });
});
