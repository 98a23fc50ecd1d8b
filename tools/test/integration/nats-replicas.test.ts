import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { AckPolicy, connect, type JetStreamManager, type NatsConnection } from "nats";
import { eventually, freePort, NatsCluster, nodeEntryArgs } from "@mainline/testing";
import { ensureStream } from "@mainline/kit/bus/index";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";
import { STREAMS, TEST_RUN_OUTPUTS_BUCKET } from "@mainline/kit/streams/index";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const COORDINATOR_MAIN = path.join(ROOT, "services/queue-coordinator/src/main.ts");

/** NATS_REPLICAS on a real three-node cluster: what a service creates has three copies, what it finds with fewer is raised. */
describe("NATS_REPLICAS: streams, buckets and object stores replicated across a three-node cluster", function () {
  this.timeout(180_000);
  let cluster: NatsCluster;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let coordinator: ChildProcess | undefined;
  const log: string[] = [];

  /** How many copies JetStream keeps of a stream, and on how many nodes they are placed. */
  const replicasOf = async (stream: string) => {
    const info = await jsm.streams.info(stream);
    return { configured: info.config.num_replicas, placed: 1 + (info.cluster?.replicas?.length ?? 0) };
  };

  before(async () => {
    cluster = await NatsCluster.start();
    await cluster.waitReady(60_000);
    nc = await connect(cluster.connectOptions());
    jsm = await nc.jetstreamManager();
    // As a single-node deployment (or one from before NATS_REPLICAS) left it: the events stream with one copy.
    await ensureStream(jsm, { ...STREAMS.events, subjects: [...STREAMS.events.subjects] });
    expect((await replicasOf(STREAMS.events.name)).configured).to.equal(1);
    await nc.jetstream().publish("mainline.events.queue", new TextEncoder().encode("{}"));
    await jsm.consumers.add(STREAMS.events.name, { durable_name: "reader", ack_policy: AckPolicy.Explicit });
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...cluster.serviceEnv(),
      NATS_REPLICAS: "3",
      GRPC_PORT: String(port),
      LOG_LEVEL: "info",
    };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.MONGODB_URI;
    coordinator = spawn(process.execPath, nodeEntryArgs(COORDINATOR_MAIN), {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [coordinator.stdout!, coordinator.stderr!])
      createInterface({ input: stream }).on("line", (line) => log.push(line));
    await eventually(async () => {
      expect(coordinator!.exitCode, `the coordinator exited:\n${log.join("\n")}`).to.equal(null);
      expect(await checkGrpcHealth(`127.0.0.1:${port}`), "coordinator serving").to.equal(true);
    }, 90_000);
  });
  after(async () => {
    if (coordinator && coordinator.exitCode === null) {
      const exited = once(coordinator, "exit");
      coordinator.kill("SIGTERM");
      await exited;
    }
    await nc?.close();
    await cluster?.stop();
  });

  it("raises a stream found with one copy to three, keeps its messages, and says so in the log", async () => {
    expect(await replicasOf(STREAMS.events.name)).to.deep.equal({ configured: 3, placed: 3 });
    expect((await jsm.streams.info(STREAMS.events.name)).state.messages).to.equal(1);
    const said = log.map((line) => JSON.parse(line) as { msg?: string }).map((entry) => entry.msg);
    expect(said).to.include(`raised replicas of ${STREAMS.events.name} from 1 to 3`);
  });

  it("creates the streams it provisions with three copies", async () => {
    for (const stream of [STREAMS.jobs.name, STREAMS.results.name])
      expect(await replicasOf(stream), stream).to.deep.equal({ configured: 3, placed: 3 });
  });

  it("creates its key-value buckets (lease and store) and its object store with three copies", async () => {
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    const storeBuckets = names.filter((n) => n.startsWith("KV_mainline-2dqueue-2dcoordinator_"));
    expect(storeBuckets, "the coordinator's store buckets").to.not.deep.equal([]);
    for (const stream of [
      "KV_mainline_coordinator_leases",
      `OBJ_${TEST_RUN_OUTPUTS_BUCKET}`,
      ...storeBuckets,
    ])
      expect(await replicasOf(stream), stream).to.deep.equal({ configured: 3, placed: 3 });
  });

  it("keeps the consumers of a raised stream on as many nodes as the stream", async () => {
    // A durable consumer made while the stream had one copy follows it to three (a lost node loses no position).
    await eventually(async () => {
      const consumer = await jsm.consumers.info(STREAMS.events.name, "reader");
      expect(1 + (consumer.cluster?.replicas?.length ?? 0)).to.equal(3);
    }, 30_000);
    for await (const consumer of jsm.consumers.list(STREAMS.results.name)) {
      const placed = 1 + (consumer.cluster?.replicas?.length ?? 0);
      expect(placed, `${STREAMS.results.name}/${consumer.name}`).to.equal(3);
    }
  });
});
