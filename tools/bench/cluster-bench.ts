/**
 * One node against a three-node JetStream cluster (issue 25, item 7), in the same run on the same machine:
 * the whole system as `make dev` starts it (every service its own process, `--replicas` of each), once on one
 * nats-server (NATS_REPLICAS=1) and once on three as one cluster (NATS_REPLICAS=3: every write is a Raft commit
 * on two of three nodes), measuring through the gateways:
 *
 * - flaky ingest: JUnit uploads per second (and test results per second) through POST /v1/flaky-tests/upload,
 *   the gateway, the flaky-analytics service and its store, `--upload-concurrency` uploads in flight;
 * - getSubmittedPullRequest: p50 / p95 latency and requests per second with `--connections` polls in flight,
 *   spread over the gateway replicas;
 * - failover (cluster only): with a prober reading (getSubmittedPullRequest) and another writing (updateQueue),
 *   the node leading the coordinator's queue bucket (else the meta leader) is SIGKILLed; the figure is the time
 *   from the kill until each prober's requests succeed again, and the longest gap without a success.
 *
 *   node --conditions=mainline-source --import tsx tools/bench/cluster-bench.ts
 *   ... --seconds 5 --rounds 3 --connections 10 --upload-concurrency 4 --results-per-upload 200 --replicas 2
 *
 * Both systems run at once and are measured in alternating rounds (medians printed), so a shared machine's
 * load falls on both alike.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { freePortBlock } from "@mainline/testing";
import { startSystem, waitForHttp, type RunningSystem } from "../src/dev/system.js";
import { leaderNode, Prober } from "./cluster-bench-probes.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    "upload-concurrency": { type: "string", default: "4" },
    "results-per-upload": { type: "string", default: "200" },
    replicas: { type: "string", default: "2" },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const uploadConcurrency = Number(values["upload-concurrency"]);
const resultsPerUpload = Number(values["results-per-upload"]);
const replicas = Number(values.replicas);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const queue = { repo: { host: "git.bench.local", owner: "bench", name: "app" }, targetBranch: "main" };
const flakyRepo = { host: "git.bench.local", owner: "bench", name: "flaky" };

interface Figures {
  uploadsPerSecond: number;
  resultsPerSecond: number;
  p50: number;
  p95: number;
  requestsPerSecond: number;
  failover?: string[];
}

const post = (url: string, token: string, route: string, body: unknown) =>
  fetch(`${url}${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-token": token },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });

async function must(url: string, token: string, route: string, body: unknown): Promise<void> {
  const response = await post(url, token, route, body);
  if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function junit(upload: number): string {
  const cases: string[] = [];
  for (let i = 0; i < resultsPerUpload; i++) {
    cases.push(
      i % 50 === upload % 50
        ? `<testcase classname="bench.Suite${i % 10}" name="case ${i}"><failure message="run ${upload}">boom</failure></testcase>`
        : `<testcase classname="bench.Suite${i % 10}" name="case ${i}"/>`,
    );
  }
  return `<?xml version="1.0"?><testsuites><testsuite name="bench" tests="${resultsPerUpload}">${cases.join("")}</testsuite></testsuites>`;
}

/** Runs `workers` loops of `call` for `seconds`; returns each successful call's latency (ms). */
async function load(workers: number, call: (worker: number, n: number) => Promise<boolean>) {
  const latencies: number[] = [];
  let failures = 0;
  const until = performance.now() + seconds * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (performance.now() < until) {
        const began = performance.now();
        const ok = await call(worker, n++).catch(() => false);
        if (ok) latencies.push(performance.now() - began);
        else failures += 1;
      }
    }),
  );
  return { latencies: latencies.sort((a, b) => a - b), failures };
}

async function prepare(system: RunningSystem): Promise<void> {
  const { apiUrls, apiToken } = system;
  const api = apiUrls[0]!;
  await must(api, apiToken, "/createQueue", { ...queue, concurrency: 1 });
  await must(api, apiToken, "/code-host/pull-request-events", {
    action: "opened",
    number: 1,
    pull_request: {
      title: "Bench",
      state: "open",
      user: { login: "dev" },
      head: { ref: "bench-1", sha: "a".repeat(40) },
      base: { ref: "main" },
    },
    repository: {
      name: queue.repo.name,
      owner: { login: queue.repo.owner },
      html_url: "https://git.bench.local/bench/app",
    },
  });
  await must(api, apiToken, "/submitPullRequest", { ...queue, pr: { number: 1 } });
}

/** One round on one system: uploads for `seconds`, then polls for `seconds`. */
async function measureRound(system: RunningSystem, label: string, round: number): Promise<Figures> {
  const { apiUrls, apiToken } = system;
  const uploads = await load(uploadConcurrency, async (worker, n) => {
    const response = await post(apiUrls[worker % apiUrls.length]!, apiToken, "/flaky-tests/upload", {
      repo: flakyRepo,
      commit_sha: (round * 1_000_000 + n + 1).toString(16).padStart(40, "0"),
      branch: "main",
      upload_id: `bench-${round}-${n}`,
      junit: [junit(n)],
    });
    await response.arrayBuffer();
    return response.status === 200;
  });
  const polls = await load(connections, async (worker) => {
    const response = await post(apiUrls[worker % apiUrls.length]!, apiToken, "/getSubmittedPullRequest", {
      ...queue,
      pr: { number: 1 },
    });
    await response.arrayBuffer();
    return response.status === 200;
  });
  const figures: Figures = {
    uploadsPerSecond: uploads.latencies.length / seconds,
    resultsPerSecond: (uploads.latencies.length * resultsPerUpload) / seconds,
    p50: percentile(polls.latencies, 50),
    p95: percentile(polls.latencies, 95),
    requestsPerSecond: polls.latencies.length / seconds,
  };
  console.log(
    `round ${round + 1}, ${label}: ${figures.uploadsPerSecond.toFixed(1)} uploads/s (${Math.round(figures.resultsPerSecond)} results/s, ` +
      `${uploads.failures} failed), getSubmittedPullRequest p50 ${figures.p50.toFixed(1)} ms, p95 ${figures.p95.toFixed(1)} ms, ` +
      `${Math.round(figures.requestsPerSecond)} req/s (${polls.failures} failed)`,
  );
  return figures;
}

/** Each figure's median over the rounds. */
function median(all: readonly Figures[]): Figures {
  const mid = (pick: (f: Figures) => number) => {
    const sorted = all.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  return {
    uploadsPerSecond: mid((f) => f.uploadsPerSecond),
    resultsPerSecond: mid((f) => f.resultsPerSecond),
    p50: mid((f) => f.p50),
    p95: mid((f) => f.p95),
    requestsPerSecond: mid((f) => f.requestsPerSecond),
  };
}

async function failover(system: RunningSystem): Promise<string[]> {
  const cluster = system.natsCluster!;
  const { apiUrls, apiToken } = system;
  let concurrency = 1;
  const read = new Prober(async () => {
    const response = await post(apiUrls[0]!, apiToken, "/getSubmittedPullRequest", {
      ...queue,
      pr: { number: 1 },
    });
    await response.arrayBuffer();
    return response.status === 200;
  });
  const write = new Prober(async () => {
    concurrency = (concurrency % 5) + 1;
    const response = await post(apiUrls[1 % apiUrls.length]!, apiToken, "/updateQueue", {
      ...queue,
      concurrency,
    });
    await response.arrayBuffer();
    return response.status === 200;
  });
  await sleep(2_000);
  const { index, why } = await leaderNode(cluster.cluster.nodes, "KV_mainline-2dqueue-2dcoordinator_queues");
  const killedAt = Date.now();
  await cluster.down(index);
  await sleep(30_000);
  const lines = [read, write].map((prober, k) => {
    const name = k === 0 ? "read (getSubmittedPullRequest)" : "write (updateQueue)";
    const back = prober.backAfter(killedAt);
    return (
      `${name}: ${back === undefined ? "did not succeed again within 30 s" : `succeeding again ${(back / 1000).toFixed(1)} s after the kill`}, ` +
      `longest gap ${(prober.longestGap(killedAt, killedAt + 30_000) / 1000).toFixed(1)} s, ` +
      `${prober.failuresAfter(killedAt)} failed requests`
    );
  });
  await Promise.all([read.stop(), write.stop()]);
  console.log(`failover: SIGKILL of node ${index} (${why})`);
  for (const line of lines) console.log(`  ${line}`);
  await cluster.up(index);
  return [`node ${index} (${why})`, ...lines];
}

interface Started {
  label: string;
  system: RunningSystem;
  dataDir: string;
}

async function start(label: string, natsCluster: number): Promise<Started> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "mainline-cluster-bench-"));
  const base = await freePortBlock(40);
  const began = performance.now();
  const system = await startSystem({
    root,
    dataDir,
    gatewayPort: base,
    natsPort: base + 5,
    grpcBasePort: base + 20,
    natsCluster,
    replicas,
    env: { LOG_LEVEL: "warn" },
    output: () => undefined,
    log: () => undefined,
  });
  const ready = await Promise.all(system.apiUrls.map((url) => waitForHttp(`${url}/readyz`, 240_000)));
  if (!ready.every(Boolean)) throw new Error(`${label}: not ready in 240 s`);
  console.log(
    `${label}: ${replicas} processes of every service ready in ${((performance.now() - began) / 1000).toFixed(0)} s`,
  );
  await prepare(system);
  return { label, system, dataDir };
}

// Both systems run at once and are measured in alternating rounds, so both see the same machine (a shared one).
const started = await Promise.all([start("1 node", 1), start("3-node cluster", 3)]);
const perSystem: Figures[][] = started.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (const [i, s] of started.entries()) perSystem[i]!.push(await measureRound(s.system, s.label, round));
}
const single = median(perSystem[0]!);
const cluster = median(perSystem[1]!);
await started[0].system.stop();
cluster.failover = await failover(started[1].system);
await started[1].system.stop();
for (const s of started) await rm(s.dataDir, { recursive: true, force: true });

const ratio = (a: number, b: number) => (a === 0 ? "-" : (b / a).toFixed(2));
console.log("");
console.log(`medians of ${rounds} alternating rounds of ${seconds} s each:`);
console.log(`| figure | 1 node | 3-node cluster | cluster / 1 node |`);
console.log(`|---|---|---|---|`);
console.log(
  `| flaky ingest, uploads/s (${resultsPerUpload} results each) | ${single.uploadsPerSecond.toFixed(1)} | ${cluster.uploadsPerSecond.toFixed(1)} | ${ratio(single.uploadsPerSecond, cluster.uploadsPerSecond)} |`,
);
console.log(
  `| getSubmittedPullRequest p50 ms | ${single.p50.toFixed(1)} | ${cluster.p50.toFixed(1)} | ${ratio(single.p50, cluster.p50)} |`,
);
console.log(
  `| getSubmittedPullRequest p95 ms | ${single.p95.toFixed(1)} | ${cluster.p95.toFixed(1)} | ${ratio(single.p95, cluster.p95)} |`,
);
console.log(
  `| getSubmittedPullRequest req/s (${connections} in flight) | ${Math.round(single.requestsPerSecond)} | ${Math.round(cluster.requestsPerSecond)} | ${ratio(single.requestsPerSecond, cluster.requestsPerSecond)} |`,
);
console.log(`failover after a node kill: ${(cluster.failover ?? []).join("; ")}`);
console.log(
  `command: node --conditions=mainline-source --import tsx tools/bench/cluster-bench.ts --seconds ${seconds} --rounds ${rounds} ` +
    `--connections ${connections} --upload-concurrency ${uploadConcurrency} --results-per-upload ${resultsPerUpload} --replicas ${replicas}`,
);
