/**
 * flaky-analytics' answer to the merge queue (issue 26): GetTestsStatus for a failed run's tests (500, the bound),
 * over a repository of 20,000 tests, answered from the in-memory index. The queue asks once per failed run with a
 * 2 s deadline; the goal is milliseconds.
 *
 *   node --conditions=mainline-source --import tsx tools/bench/tests-status-bench.ts [--tests 20000] [--asks 200]
 */
import { parseArgs } from "node:util";
import { connect } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore } from "@mainline/kit/store/index";
import { testId } from "@mainline/junit";
import { createFlakyService } from "@mainline/flaky-analytics";

// One settings read from the store (a NATS round trip) and a map lookup per test; the round trip is the tail.
const P95_GOAL_MS = 50;
const { values } = parseArgs({
  options: { tests: { type: "string", default: "20000" }, asks: { type: "string", default: "200" } },
});
const tests = Number(values.tests);
const asks = Number(values.asks);
const repo = { host: "github.com", owner: "acme", name: "monorepo" };

const nats = await NatsServer.start();
const nc = await connect(nats.connectOptions());
const store = await openStore({ database: "tests-status-bench", nats: nc });
const { app } = await createFlakyService({
  nats: nc,
  store,
  logger: createLogger("bench", "silent"),
  pageTokenKey: "tests-status-bench-page-token",
  publicBaseUrl: "http://bench",
});
const cases = Array.from({ length: tests }, (_, i) =>
  i % 50 === 0
    ? `<testcase classname="Suite${i % 100}" name="case${i}"><failure message="no"/></testcase>`
    : `<testcase classname="Suite${i % 100}" name="case${i}"/>`,
).join("");
await app.uploadTestResults({
  org: "acme",
  repo,
  commitSha: "a".repeat(40),
  branch: "main",
  variant: "",
  jobName: "ci",
  runStartedAt: Date.now() - 60_000,
  context: "ci",
  junitXml: [`<testsuites><testsuite name="all">${cases}</testsuite></testsuites>`],
  impactedPrNumbers: [],
});
// 500 failed tests of a run: known ones, spread over the suite.
const ids = Array.from({ length: 500 }, (_, k) => {
  const i = (k * 37) % tests;
  return testId({ org: "acme", repo, classname: `Suite${i % 100}`, parent: "all", name: `case${i}` });
});
const timings: number[] = [];
for (let n = 0; n < asks; n++) {
  const started = performance.now();
  const answer = await app.getTestsStatus({ org: "acme", repo, testIds: ids, targetBranch: "main" });
  timings.push(performance.now() - started);
  if (answer.tests.filter((t) => t.known).length !== ids.length) throw new Error("a test was not known");
}
timings.sort((a, b) => a - b);
const at = (p: number) => timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))] ?? 0;
const p95 = at(95);
console.log(
  `GetTestsStatus, 500 tests of ${tests}: p50 ${at(50).toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, max ${at(100).toFixed(2)} ms (goal p95 <= ${P95_GOAL_MS} ms): ${p95 <= P95_GOAL_MS ? "ok" : "MISSED"}`,
);
await store.close();
await nc.close();
await nats.stop();
if (p95 > P95_GOAL_MS) process.exitCode = 1;
