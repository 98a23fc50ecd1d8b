/**
 * GitHub webhook benchmark: signed `pull_request` deliveries through POST /v1/github/webhooks (signature check,
 * redelivery lookup, installation -> organisation, the coordinator recording the PR's facts, the delivery
 * recorded), and the same deliveries again (redeliveries answered `duplicate`). NATS, the coordinator and the
 * gateway run in this process; `--concurrency` requests are in flight at once, like GitHub's parallel deliveries.
 *
 *   node --conditions=mainline-source --import tsx tools/bench/github-webhooks-bench.ts [--deliveries 1000] [--concurrency 10]
 */
import { parseArgs } from "node:util";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { example, githubRequest, through } from "../test/integration/github/github-deliveries.js";

const { values } = parseArgs({
  options: {
    deliveries: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "10" },
  },
});
const total = Number(values.deliveries);
const concurrency = Number(values.concurrency);
const SECRET = "benchmark webhook secret, 32 chars";
const INSTALLATION = 4242;
const ACME = { owner: "acme", name: "widgets" };

const coordinator = await CoordinatorHarness.start();
const gw = await GatewayHarness.start({ queue: coordinator.address }, { github: { webhookSecret: SECRET } });
await gw.auth.createOrganization("acme", "acme");
const admin = (await gw.auth.createToken("acme", "admin", true)).token;
await gw.post("/github/installations", { installationId: INSTALLATION, accountLogin: ACME.owner }, admin);

const base = through(
  example("pull_request", "opened", (e) => e.installation !== undefined),
  INSTALLATION,
  ACME,
);
const requests = await Promise.all(
  Array.from({ length: total }, (_, i) => {
    const p = structuredClone(base);
    p.number = i + 1;
    const pr = p.pull_request as { number: number; head: { ref: string } };
    pr.number = i + 1;
    pr.head.ref = `feature-${i + 1}`;
    return githubRequest({ event: "pull_request", payload: p }, SECRET);
  }),
);

async function run(expected: string): Promise<{ perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const t0 = performance.now();
        const response = await fetch(`${gw.url}/github/webhooks`, {
          method: "POST",
          headers: r.headers,
          body: r.body,
        });
        const answer = (await response.json()) as { outcome: string };
        latencies.push(performance.now() - t0);
        if (answer.outcome !== expected)
          throw new Error(`expected ${expected}, got ${JSON.stringify(answer)}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { perSecond: total / seconds, p50: at(0.5), p99: at(0.99) };
}

const fresh = await run("applied");
const again = await run("duplicate");
const line = (name: string, r: { perSecond: number; p50: number; p99: number }) =>
  `${name.padEnd(12)} ${r.perSecond.toFixed(0).padStart(6)}/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`;
console.log(`${total} signed pull_request deliveries, ${concurrency} in flight`);
console.log(line("new", fresh));
console.log(line("redelivered", again));
await gw.stop();
await coordinator.stop();
await coordinator.nats.stop();
