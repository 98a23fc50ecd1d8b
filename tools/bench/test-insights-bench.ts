/**
 * Test insights benchmark (issue 29 item 3): the latency of POST /v1/insights/tests' use case (a 90-day query: the
 * repository's runs, failures, flaky and broken tests per day and per hour, and the costliest tests) and of one
 * test's 90-day trend, for an organisation with 1,000,000 test results spread over 90 days, against the goal of
 * p95 < 100 ms; and what the aggregates cost in memory (heap after a full collection, before and after ingest).
 *
 *   node --conditions=mainline-source --import tsx tools/bench/test-insights-bench.ts           # 1,000,000 results
 *   node --conditions=mainline-source --import tsx tools/bench/test-insights-bench.ts --quick   # 100,000 results
 *   ... --results 2000000 --tests 20000
 *
 * The workload is CI and merge-queue runs of one repository's whole suite spread evenly over 90 days (results =
 * tests x runs), every other run a merge-queue batch of three PRs; a share of results fail at random and some pass
 * on a retry. Every upload goes through the service's ingest use case on the embedded store over a real
 * nats-server, as flaky-bench.ts does; the queries then go through the use cases the gRPC handlers call.
 */
import { parseArgs } from "node:util";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { connect } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore } from "@mainline/kit/store/index";
import { createFlakyService } from "@mainline/flaky-analytics";
import { seededRandom } from "./seeded-random.js";

const P95_GOAL_MS = 100;

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    results: { type: "string" },
    tests: { type: "string" },
    queries: { type: "string", default: "40" },
  },
});
const tests = Number(values.tests ?? (values.quick ? 2_000 : 10_000));
const results = Number(values.results ?? (values.quick ? 100_000 : 1_000_000));
const queries = Number(values.queries);
const runs = Math.max(1, Math.round(results / tests));
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const END = Date.UTC(2026, 2, 17, 0, 0, 0);
const START = END - 90 * DAY;
const repo = { host: "github.com", owner: "acme", name: "monorepo" };

/** One run of the suite: 2% of results fail, 1% fail once and pass on a retry (two <testcase>s). */
function suiteRun(run: number, rnd: () => number): string {
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'];
  const perClass = 50;
  for (let first = 0; first < tests; first += perClass) {
    const cls = `com.acme.module${Math.floor(first / 1000)}.Feature${first / perClass}Test`;
    parts.push(`<testsuite name="${cls}" tests="${perClass}">`);
    for (let i = first; i < Math.min(first + perClass, tests); i++) {
      const roll = rnd();
      const failure = `<failure message="expected ${run} but was ${i}" type="AssertionError">at ${cls}</failure>`;
      if (roll < 0.02)
        parts.push(`<testcase name="case${i}" classname="${cls}" time="0.5">${failure}</testcase>`);
      else if (roll < 0.03)
        parts.push(
          `<testcase name="case${i}" classname="${cls}" time="0.5">${failure}</testcase>`,
          `<testcase name="case${i}" classname="${cls}" time="0.5"/>`,
        );
      else parts.push(`<testcase name="case${i}" classname="${cls}" time="0.004"/>`);
    }
    parts.push("</testsuite>");
  }
  parts.push("</testsuites>");
  return parts.join("\n");
}

function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

function heapMiB(): number {
  const gc = collector();
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

const nats = await NatsServer.start();
const nc = await connect(nats.connectOptions());
const store = await openStore({ database: "test-insights-bench", nats: nc });
let now = START;
const service = await createFlakyService({
  nats: nc,
  store,
  logger: createLogger("test-insights-bench", "warn"),
  pageTokenKey: "test-insights-bench-key",
  publicBaseUrl: "http://127.0.0.1:8080",
  now: () => now,
});
const app = service.app;
const heapBefore = heapMiB();

console.log(`workload: ${fmt(tests)} tests x ${runs} runs = ${fmt(tests * runs)} results over 90 days`);
const rnd = seededRandom(29);
const began = performance.now();
let ingested = 0;
for (let run = 0; run < runs; run++) {
  const at = START + Math.floor(((run + 0.5) * 90 * DAY) / runs);
  now = at;
  const queue = run % 2 === 1;
  const response = await app.uploadTestResults({
    org: "acme",
    repo,
    commitSha: (run + 1).toString(16).padStart(40, "0"),
    branch: queue ? `mainline/queue/${run}` : "main",
    prNumber: undefined,
    impactedPrNumbers: queue ? [3 * run, 3 * run + 1, 3 * run + 2] : [],
    variant: "",
    jobName: "unit",
    runStartedAt: at,
    context: queue ? "merge_queue" : "ci",
    junitXml: [suiteRun(run, rnd)],
  });
  ingested += response.results;
}
const ingestSeconds = (performance.now() - began) / 1000;
console.log(`ingested ${fmt(ingested)} results in ${ingestSeconds.toFixed(1)} s`);
now = END - HOUR;
const heapAfter = heapMiB();

let extra = 0;
/** A one-test upload (not timed): the journal moves on, so the next query cannot reuse an earlier answer. */
async function newUpload(): Promise<void> {
  extra++;
  await app.uploadTestResults({
    org: "acme",
    repo,
    commitSha: (runs + extra).toString(16).padStart(40, "0"),
    branch: "main",
    impactedPrNumbers: [],
    variant: "",
    jobName: "unit",
    runStartedAt: now,
    context: "ci",
    junitXml: ['<testsuite name="late"><testcase classname="Late" name="late"/></testsuite>'],
  });
}

async function measure(
  name: string,
  query: () => Promise<unknown>,
  before: () => Promise<void> = () => Promise.resolve(),
): Promise<number> {
  await query(); // the first read catches up with the journal head
  const latencies: number[] = [];
  for (let i = 0; i < queries; i++) {
    await before();
    const start = performance.now();
    await query();
    latencies.push(performance.now() - start);
  }
  latencies.sort((a, b) => a - b);
  const p95 = percentile(latencies, 95);
  console.log(
    `${name.padEnd(44)} p50 ${percentile(latencies, 50).toFixed(1).padStart(6)} ms  p95 ${p95.toFixed(1).padStart(6)} ms`,
  );
  return p95;
}

const insights = (bucket: "day" | "hour", cursor = "") =>
  app.getTestInsights({ org: "acme", repo, period: "90d", bucket, cursor, limit: 100 });
const first = await insights("day");
console.log(
  `90 days: ${fmt(first.buckets.reduce((s, b) => s + b.runs, 0))} runs counted, ${fmt(first.totalCostlyTests)} costly tests`,
);
const top = first.costliest[0]!;
const p95s = [
  await measure("insights/tests 90d by day, after an upload", () => insights("day"), newUpload),
  await measure("insights/tests 90d by hour, after an upload", () => insights("hour"), newUpload),
  await measure("insights/tests 90d by day, read again", () => insights("day")),
  await measure(
    "insights/tests 90d by day, tests 101-200",
    () => insights("day", first.nextCursor),
    newUpload,
  ),
  await measure("insights/test 90d by day (one test)", () =>
    app.getTestTrend({ org: "acme", repo, testId: top.id, period: "90d", bucket: "day" }),
  ),
];
const worst = Math.max(...p95s);
console.log(
  `p95 goal < ${P95_GOAL_MS} ms at ${fmt(ingested)} results: ${worst < P95_GOAL_MS ? "met" : "NOT met"} (worst p95 ${worst.toFixed(1)} ms)`,
);
console.log(
  `heap after a full collection: ${heapBefore.toFixed(0)} MiB before ingest, ${heapAfter.toFixed(0)} MiB after` +
    ` (every test's 90 days of aggregates, hour buckets, evidence and recent runs included)`,
);
app.outbox.stop();
await store.close();
await nc.close();
await nats.stop();
