import { expect } from "chai";
import type { ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { connect } from "nats";
import { freePort, NatsServer, skipBecause } from "@mainline/testing";
import { helm, parseManifests, readYaml, type JsonObject } from "./deploy-files.js";
import { natsWithAuthorization } from "./nats-with-config.js";

// deploy/helm/nats-values.yaml: values for the official NATS chart that mount Mainline's NATS authorization
// block and include it. The NATS chart is not here to render, so the test lays the files out as its pods
// would (the chart's config at /etc/nats-config/nats.conf, the Secret's key at the mount path), then runs a
// real nats-server on that config: it must refuse a client without credentials and let a component in.

interface NatsChartValues {
  config: {
    cluster: { enabled: boolean; replicas: number };
    jetstream: { enabled: boolean; fileStore: { enabled: boolean } };
    merge: Record<string, string>;
  };
  container: { patch: { op: string; path: string; value: { name: string; mountPath: string } }[] };
  podTemplate: {
    topologySpreadConstraints: Record<string, { whenUnsatisfiable: string }>;
    patch: {
      op: string;
      path: string;
      value: { name: string; secret: { secretName: string; items: { key: string; path: string }[] } };
    }[];
  };
}

const NATS_CONFIG_DIR = "/etc/nats-config";
const decode = (value: unknown) => Buffer.from(String(value), "base64").toString("utf8");

describe("deploy/helm/nats-values.yaml: the official NATS chart with Mainline's users", function () {
  this.timeout(60_000);
  const values = readYaml<NatsChartValues>("deploy/helm/nats-values.yaml");
  // As the README installs it: a Mainline release named "mainline".
  const rendered = helm("template", "mainline", ".", "-f", "ci/default-values.yaml");
  const secret = parseManifests(rendered.stdout).find((m) => m.kind === "Secret");
  const volume = values.podTemplate.patch[0]!.value;
  const mount = values.container.patch[0]!.value;
  const include = values.config.merge.$include!;
  let root: string;
  let server: ChildProcess | undefined;
  let url: string;

  before(async function () {
    expect(rendered.status, rendered.stderr).to.equal(0);
    if (!NatsServer.isInstalled())
      return skipBecause(this, "nats-server is not installed (apt-get install nats-server)");
    root = await mkdtemp(join(tmpdir(), "mainline-nats-chart-"));
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    for (const item of volume.secret.items) {
      const file = join(root, mount.mountPath, item.path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, decode((secret!.data as JsonObject)[item.key]));
    }
    const config = join(root, NATS_CONFIG_DIR, "nats.conf");
    await mkdir(dirname(config), { recursive: true });
    // The include line is what the NATS chart renders for a `$include` key, next to its own settings.
    server = await natsWithAuthorization({ configFile: config, port, storeDir: join(root, "js"), include });
  });
  after(async () => {
    server?.kill("SIGTERM");
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("mounts the key of the Secret Mainline's release makes, where the include points", () => {
    expect(values.config.jetstream.enabled).to.equal(true);
    expect(volume.secret.secretName).to.equal(secret?.metadata.name);
    expect(volume.secret.items.map((i) => i.key)).to.deep.equal(["nats-authorization.conf"]);
    expect(Object.keys(secret?.data as JsonObject)).to.include("nats-authorization.conf");
    expect(mount.name).to.equal(volume.name);
    // Under /etc/ the chart's config reloader mounts it too, and reloads NATS when the Secret changes.
    expect(mount.mountPath.startsWith("/etc/")).to.equal(true);
    expect(resolve(NATS_CONFIG_DIR, include)).to.equal(join(mount.mountPath, volume.secret.items[0]!.path));
  });

  it("runs three NATS nodes as one JetStream cluster with file storage, one per Kubernetes node", () => {
    // Mainline's chart keeps three copies of everything (nats.replicas): JetStream needs that many nodes.
    const mainlineValues = readYaml<{ nats: { replicas: number } }>("deploy/helm/mainline/values.yaml");
    expect(values.config.cluster).to.deep.include({ enabled: true, replicas: mainlineValues.nats.replicas });
    expect(values.config.jetstream.fileStore.enabled).to.equal(true);
    expect(
      values.podTemplate.topologySpreadConstraints["kubernetes.io/hostname"]?.whenUnsatisfiable,
    ).to.equal("DoNotSchedule");
  });

  it("gives a NATS that refuses a client without credentials and lets each component in", async () => {
    const anonymous = await connect({ servers: url, reconnect: false }).then(
      (nc) => nc.close().then(() => undefined),
      (e: { code?: string }) => e,
    );
    expect(anonymous?.code).to.equal("AUTHORIZATION_VIOLATION");
    const data = secret!.data as JsonObject;
    const nc = await connect({
      servers: url,
      user: "batch-runner",
      pass: decode(data["nats-password-batch-runner"]),
      reconnect: false,
    });
    try {
      expect((await (await nc.jetstreamManager()).getAccountInfo()).limits).to.be.an("object");
    } finally {
      await nc.close();
    }
  });
});
