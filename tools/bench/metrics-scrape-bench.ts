/**
 * The metrics service's scrape (issue 25): GetMergeQueueMetrics over 10,000 observations in the window, as
 * Prometheus asks every replica every 15 s. Two replicas on one nats-server and store, side by side in one run:
 * the code of `--baseline` (a git revision; its services/metrics is unpacked under .bench/ and run with this
 * checkout's packages) and this checkout's. Each round scrapes both; both must answer the same text (the same
 * store, every observation counted once). "idle": nothing written between scrapes; "busy": one new observation
 * before every scrape (what a working queue looks like between two scrapes).
 *
 *   node --conditions=mainline-source --import tsx tools/bench/metrics-scrape-bench.ts \
 *     [--observations 10000] [--rounds 10] [--baseline fb6ead9]
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { connect } from "nats";
import { freePort, NatsServer } from "@mainline/testing";
import { callUnary, checkGrpcHealth, createGrpcClient } from "@mainline/kit/grpc/index";
import { openStore } from "@mainline/kit/store/index";
import { MetricsClient } from "@mainline/proto/metrics";

// Prometheus's default scrape timeout is 10 s and its interval 15 s; a scrape should be a small part of one.
const IDLE_P50_GOAL_MS = 50;
const { values } = parseArgs({
  options: {
    observations: { type: "string", default: "10000" },
    rounds: { type: "string", default: "10" },
    // The integration branch before the scrape kept anything between scrapes.
    baseline: { type: "string", default: "fb6ead9" },
  },
});
const observations = Number(values.observations);
const rounds = Number(values.rounds);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The baseline's metrics service, unpacked inside this checkout so that it resolves the same packages. */
function unpackBaseline(rev: string): string {
  const dir = path.join(repoRoot, ".bench", `metrics-baseline-${rev}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["archive", rev, "services/metrics", "tsconfig.base.json"], {
    cwd: repoRoot,
    maxBuffer: 64 << 20,
  });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  return dir;
}

async function startReplica(
  root: string,
  nats: NatsServer,
): Promise<{ child: ChildProcess; client: MetricsClient }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ["--conditions=mainline-source", "--import", "tsx", path.join(root, "services/metrics/src/main.ts")],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...nats.serviceEnv(),
        GRPC_PORT: String(port),
        // No coordinator: the gauges' re-derivation retries quietly; the scrape is what is measured.
        QUEUE_COORDINATOR_ADDR: `127.0.0.1:${await freePort()}`,
        LOG_LEVEL: "silent",
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await checkGrpcHealth(address).catch(() => false))) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`metrics service in ${root} did not start`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, client: createGrpcClient(MetricsClient, address) };
}

const nats = await NatsServer.start();
const nc = await connect(nats.connectOptions());
const store = await openStore({ database: "mainline-metrics", nats: nc });
// As ObservationStore.put writes them: one document per observation, then the generation counted once.
const docs = store.collection<{ _id: string } & Record<string, unknown>>("observations");
const generation = store.collection<{ _id: string; n: number; recent: { ids: string[] }[] }>("observations");
const now = Date.now();
const observation = (i: number, at: number) => {
  const kinds = ["pr_wait", "pr_test", "pr_time_in_queue", "run_duration", "pr_conclusion", "run_started"];
  const kind = kinds[i % kinds.length] as string;
  return {
    _id: `bench-${i}/${kind}`,
    queue: { org: "acme", host: "github.com", owner: "acme", name: `repo${i % 20}`, branch: "main" },
    queueType: i % 9 === 0 ? "bisection" : "main",
    kind,
    label: kind === "pr_conclusion" ? "merged" : null,
    value: kind === "pr_conclusion" || kind === "run_started" ? 1 : 30 + ((i * 37) % 7_000),
    at,
  };
};
// Spread over the last 50 minutes (distinct times), so none leaves the one-hour window during the run.
const seeded = Array.from({ length: observations }, (_, i) => observation(i, now - 3_000_000 + i * 7));
for (let start = 0; start < seeded.length; start += 500)
  await docs.insertMany(seeded.slice(start, start + 500));
const countWrite = (ids: string[]) =>
  generation.updateOne(
    { _id: "~generation" },
    { $inc: { n: 1 }, $push: { recent: { $each: [{ ids }], $slice: -256 } } },
    { upsert: true },
  );
// The replicas start after the seeding and read it in full.
await countWrite([]);

const baselineRoot = unpackBaseline(values.baseline);
const replicas = {
  before: await startReplica(baselineRoot, nats),
  after: await startReplica(repoRoot, nats),
};
const scrape = async (client: MetricsClient): Promise<{ ms: number; text: string }> => {
  const started = performance.now();
  const { text } = await callUnary(client.getMergeQueueMetrics.bind(client), { org: "acme" });
  return { ms: performance.now() - started, text };
};
// The first scrape of each loads what it follows of the store; not measured.
for (const { client } of Object.values(replicas)) await scrape(client);

let added = observations;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const results: Record<string, { before: number[]; after: number[] }> = {};
let differed = 0;
for (const mode of ["idle", "busy"] as const) {
  const timings = { before: [] as number[], after: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    if (mode === "busy") {
      const fresh = observation(added, Date.now() - 1_000);
      await docs.insertOne(fresh);
      added += 1;
      await countWrite([fresh._id]);
      // Both replicas' copies of the store follow the bucket a few milliseconds behind.
      await new Promise((r) => setTimeout(r, 100));
    }
    // Alternating which goes first, so neither always meets a cooler cache or a busier machine.
    const order = round % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const);
    const texts: Record<string, string> = {};
    for (const side of order) {
      const { ms, text } = await scrape(replicas[side].client);
      timings[side].push(ms);
      texts[side] = text;
    }
    if (texts.before !== texts.after) differed += 1;
  }
  results[mode] = timings;
  const [b, a] = [median(timings.before), median(timings.after)];
  console.log(
    `${mode}: ${observations} observations, ${rounds} scrapes each: before p50 ${b.toFixed(1)} ms (max ${Math.max(...timings.before).toFixed(1)}), after p50 ${a.toFixed(1)} ms (max ${Math.max(...timings.after).toFixed(1)}): ${(b / a).toFixed(1)}x`,
  );
}
console.log(`replicas answered different texts in ${differed} of ${2 * rounds} rounds (must be 0)`);
const idleAfter = median(results.idle?.after ?? []);
console.log(
  `goal: idle scrape p50 <= ${IDLE_P50_GOAL_MS} ms: ${idleAfter <= IDLE_P50_GOAL_MS ? "met" : "MISSED"} (${idleAfter.toFixed(1)} ms)`,
);

for (const { child, client } of Object.values(replicas)) {
  client.close();
  child.kill("SIGTERM");
}
await Promise.all(
  Object.values(replicas).map(({ child }) =>
    child.exitCode === null ? new Promise((r) => child.once("exit", r)) : Promise.resolve(),
  ),
);
rmSync(baselineRoot, { recursive: true, force: true });
await store.close();
await nc.close();
await nats.stop();
if (differed > 0 || idleAfter > IDLE_P50_GOAL_MS) process.exitCode = 1;
