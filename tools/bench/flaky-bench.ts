/**
 * flaky-analytics benchmark: ingest rate (test results per second, JUnit parsing included) and
 * list-failing-tests latency per page, on the embedded store over a real nats-server.
 *
 *   node --conditions=mainline-source --import tsx tools/bench/flaky-bench.ts            # ~1 minute
 *   node --conditions=mainline-source --import tsx tools/bench/flaky-bench.ts --full     # the size
 *   ... --results 200000 --tests 4000 --failure-rate 0.03 --pages 200
 *
 * The workload is CI runs of one repository's whole suite spread evenly over 7 days (results =
 * tests x runs); a share of results fail at random, which makes many tests fail at least once.
 */
import { parseArgs } from "node:util";
import { connect } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore } from "@mainline/kit/store/index";
import { createFlakyService } from "@mainline/flaky-analytics/app/flaky-service";

const { values } = parseArgs({
  options: {
    full: { type: "boolean", default: false },
    results: { type: "string" },
    tests: { type: "string" },
    "failure-rate": { type: "string", default: "0.02" },
    pages: { type: "string", default: "100" },
  },
});
const tests = Number(values.tests ?? (values.full ? 20_000 : 2_000));
const results = Number(values.results ?? (values.full ? 1_000_000 : 100_000));
const failureRate = Number(values["failure-rate"]);
const pagesToTime = Number(values.pages);
const runs = Math.max(1, Math.round(results / tests));
const DAY = 86_400_000;
const END = Date.UTC(2026, 2, 17, 0, 0, 0);
const START = END - 7 * DAY;
const repo = { host: "github.com", owner: "acme", name: "monorepo" };

/** A deterministic pseudo-random sequence, so two runs measure the same workload. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function surefireRun(run: number, rnd: () => number): string {
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'];
  const perClass = 50;
  for (let first = 0; first < tests; first += perClass) {
    const cls = `com.acme.module${Math.floor(first / 1000)}.Feature${first / perClass}Test`;
    parts.push(
      `<testsuite name="${cls}" tests="${perClass}" file="src/test/java/${cls.replaceAll(".", "/")}.java">`,
    );
    for (let i = first; i < Math.min(first + perClass, tests); i++) {
      if (rnd() < failureRate) {
        parts.push(
          `<testcase name="case${i}" classname="${cls}" time="0.012"><failure message="expected ${run} but was ${i}" ` +
            `type="java.lang.AssertionError">at ${cls}.case${i}(Feature.java:${i % 300})</failure></testcase>`,
        );
      } else {
        parts.push(`<testcase name="case${i}" classname="${cls}" time="0.004"/>`);
      }
    }
    parts.push("</testsuite>");
  }
  parts.push("</testsuites>");
  return parts.join("\n");
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const nats = await NatsServer.start();
const nc = await connect({ servers: nats.url });
const store = await openStore({ database: "flaky-bench", nats: nc });
let now = START;
const service = await createFlakyService({
  nats: nc,
  store,
  logger: createLogger("flaky-bench", "warn"),
  pageTokenKey: "flaky-bench-page-token-key",
  publicBaseUrl: "http://127.0.0.1:8080",
  now: () => now,
});
const app = service.app;

console.log(
  `workload: ${tests} tests x ${runs} runs = ${tests * runs} results over 7 days, failure rate ${failureRate}`,
);
const rnd = random(42);
let ingested = 0;
let ingestMs = 0;
for (let run = 0; run < runs; run++) {
  const at = START + Math.floor(((run + 0.5) * 7 * DAY) / runs);
  const xml = surefireRun(run, rnd); // generating the XML is not timed; parsing it is
  now = at;
  const began = performance.now();
  const response = await app.uploadTestResults({
    org: "acme",
    repo,
    commitSha: (run + 1).toString(16).padStart(40, "0"),
    branch: run % 3 === 0 ? "main" : `feature/${run}`,
    prNumber: run % 3 === 0 ? undefined : 1000 + run,
    variant: "",
    jobName: "unit",
    runStartedAt: at,
    context: "ci",
    junitXml: [xml],
  });
  ingestMs += performance.now() - began;
  ingested += response.results;
}
const ingestRate = ingested / (ingestMs / 1000);

now = END;
const latencies: number[] = [];
let totalRows = 0;
let listings = 0;
while (latencies.length < pagesToTime) {
  let token = "";
  listings++;
  do {
    const began = performance.now();
    const page = await app.listFailingTests("acme", {
      repo,
      org_url_slug: "acme",
      start_time: new Date(START).toISOString(),
      end_time: new Date(END).toISOString(),
      page_query: { page_size: 100, page_token: token },
    });
    latencies.push(performance.now() - began);
    totalRows = page.page.total_rows;
    token = page.page.next_page_token;
  } while (token !== "" && latencies.length < pagesToTime);
}
latencies.sort((a, b) => a - b);

console.log(
  `ingest: ${ingested} results in ${(ingestMs / 1000).toFixed(1)} s = ${Math.round(ingestRate)} results/s (JUnit parse included)`,
);
console.log(
  `list-failing-tests (7-day window, ${totalRows} failing tests, page_size 100, ${latencies.length} pages over ${listings} listing(s)): ` +
    `p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms per page`,
);
console.log(
  `command: node --conditions=mainline-source --import tsx tools/bench/flaky-bench.ts${values.full ? " --full" : ""}`,
);

await store.close();
await nc.close();
await nats.stop();
