/**
 * Gateway benchmark: POST /v1/getSubmittedPullRequest through the gateway (auth, validation), gRPC and the
 * queue-coordinator's store, against the same Koa process answering a static 200, under autocannon on loopback.
 * The two are measured in alternating rounds of the same run, so both see the same machine; the figure is the
 * ratio of their requests per second (goal: at least 0.5).
 *
 *   node --conditions=mainline-source --import tsx tools/bench/gateway-bench.ts
 *   ... --rounds 5 --seconds 5 --connections 10,100
 *
 * Each connection count is measured separately: 10 is autocannon's default, 100 is a crowd of CI jobs polling
 * at once (the case the gateway's coalescing of status polls is for).
 *
 * NATS, the coordinator and the gateway run in this process (the test harnesses); autocannon fires from a
 * worker thread so the load generator does not share the gateway's event loop. The gateway writes its access
 * log as in production, to /dev/null. Two more targets say where the time goes: the same request refused with
 * 400 after authentication and validation (the gateway's own work, before any gRPC), the full path on a
 * second gateway whose token cache is off (what the cache saves), and on a third that gives every status poll
 * its own gRPC call (GATEWAY_STATUS_POLL_BATCH_SIZE=1: what coalescing saves).
 */
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { pino } from "pino";
import { createLogger } from "@mainline/kit/logging/index";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "4" },
    connections: { type: "string", default: "10,100" },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connectionCounts = values.connections.split(",").map(Number);
const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { repo, targetBranch: "main" };

interface Round {
  requestsPerSecond: number;
  p99Ms: number;
}

async function fire(connections: number, options: autocannon.Options, expectedStatus = 200): Promise<Round> {
  const result = await autocannon({ connections, duration: seconds, workers: 1, ...options });
  const unexpected = expectedStatus === 200 ? result.non2xx : result["2xx"];
  const failed = unexpected + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${options.url}: ${failed} unexpected answers of ${result.requests.total}`);
  return { requestsPerSecond: result.requests.average, p99Ms: result.latency.p99 };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

const coordinator = await CoordinatorHarness.start();
const logger = createLogger("gateway", "info", pino.destination({ dest: "/dev/null", sync: false }));
const gw = await GatewayHarness.start({ queue: coordinator.address }, { staticRoute: true, logger });
const uncached = await GatewayHarness.start({ queue: coordinator.address }, { authCacheTtlMs: 0, logger });
const uncoalesced = await GatewayHarness.start(
  { queue: coordinator.address },
  { statusPollBatchSize: 1, logger },
);
try {
  const token = await gw.organization("acme");
  const uncachedToken = await uncached.organization("acme");
  const uncoalescedToken = await uncoalesced.organization("acme");
  const ok = async (path: string, body: unknown) => {
    const response = await gw.post(path, body, token);
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  };
  await ok("/createQueue", queue);
  await ok("/code-host/pull-request-events", {
    action: "opened",
    number: 1,
    pull_request: {
      title: "Change 1",
      state: "open",
      user: { login: "dev" },
      head: { ref: "feature-1", sha: "a".repeat(40) },
      base: { ref: "main" },
    },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      html_url: "https://github.com/acme/widgets",
    },
  });
  await ok("/submitPullRequest", { ...queue, pr: { number: 1 } });
  await ok("/getSubmittedPullRequest", { ...queue, pr: { number: 1 } });

  const lookup = (url: string, t: string, pr: object) => ({
    url: `${url}/getSubmittedPullRequest`,
    method: "POST" as const,
    headers: { "content-type": "application/json", "x-api-token": t },
    body: JSON.stringify({ ...queue, pr }),
  });
  const targets = {
    "static 200 (same Koa process)": { options: { url: `${new URL(gw.url).origin}/static` }, status: 200 },
    getSubmittedPullRequest: { options: lookup(gw.url, token, { number: 1 }), status: 200 },
    "  refused 400 before gRPC": { options: lookup(gw.url, token, {}), status: 400 },
    "  same, token cache off": { options: lookup(uncached.url, uncachedToken, { number: 1 }), status: 200 },
    "  same, every poll its own call": {
      options: lookup(uncoalesced.url, uncoalescedToken, { number: 1 }),
      status: 200,
    },
  };
  type Target = keyof typeof targets;
  const names = Object.keys(targets) as Target[];
  // Warm every path (JIT, gRPC channels, caches) before anything is counted.
  for (const name of names) await fire(10, { ...targets[name].options, duration: 1 }, targets[name].status);

  for (const connections of connectionCounts) {
    const measured = Object.fromEntries(names.map((n) => [n, [] as Round[]])) as Record<Target, Round[]>;
    for (let round = 0; round < rounds; round++) {
      for (const name of names) {
        const r = await fire(connections, targets[name].options, targets[name].status);
        measured[name].push(r);
        console.log(
          `${connections} connections, round ${round + 1} ${name.trim().padEnd(30)} ` +
            `${r.requestsPerSecond.toFixed(0).padStart(6)} req/s  p99 ${r.p99Ms} ms`,
        );
      }
    }
    report(connections, names, measured);
  }
} finally {
  await gw.stop();
  await uncached.stop();
  await uncoalesced.stop();
  await coordinator.stop();
  await coordinator.nats.stop();
}

function report<Target extends string>(
  connections: number,
  names: Target[],
  measured: Record<Target, Round[]>,
) {
  const summary = Object.fromEntries(
    names.map((name) => [
      name,
      {
        requestsPerSecond: median(measured[name].map((r) => r.requestsPerSecond)),
        p99Ms: median(measured[name].map((r) => r.p99Ms)),
      },
    ]),
  ) as Record<Target, Round>;
  const [baseline, subject] = names;
  if (!baseline || !subject) return;
  const base = summary[baseline].requestsPerSecond;
  console.log(`\ngateway, ${connections} connections, median of ${rounds} rounds of ${seconds} s each:`);
  for (const name of names) {
    const { requestsPerSecond, p99Ms } = summary[name];
    console.log(
      `  ${name.padEnd(32)} ${requestsPerSecond.toFixed(0).padStart(6)} req/s  p99 ${String(p99Ms).padStart(4)} ms` +
        `  ratio ${(requestsPerSecond / base).toFixed(2)}`,
    );
  }
  // Each round's two figures were taken seconds apart, so their ratio is the least disturbed by a machine whose
  // load changes (other jobs on a shared 2-core host): the figure is the median of the per-round ratios.
  const ratio = median(
    measured[subject].map((r, i) => r.requestsPerSecond / (measured[baseline][i]?.requestsPerSecond ?? 1)),
  );
  console.log(
    `  the figure at ${connections} connections: ${subject} / static, median of the per-round ratios ` +
      `${ratio.toFixed(2)} (goal >= 0.5): ${ratio >= 0.5 ? "met" : "NOT MET"}\n`,
  );
}
