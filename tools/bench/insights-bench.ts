/**
 * Insights benchmark (issue 29): how long POST /v1/insights/queue takes over 90 days of history, and how long the
 * web page takes to draw 90 days by hour.
 *
 *   node --conditions=mainline-source --import tsx tools/bench/insights-bench.ts   (--queues 5 --prs 50000 --rounds 40)
 *
 * The queue-coordinator and the gateway run in this process on one nats-server (the test harnesses). The history:
 * `--prs` merged PRs spread over the 90 days and `--queues` queues of one organisation, each hour counted by the
 * coordinator's own counting (domain countStep, on a run start and a merge per PR) and stored through its
 * InsightHours, as the engine seals them; a month made PR by PR through the API is the browser test's
 * (tools/test/web/queue-month.ts). The API figure: the p95 of `--rounds` calls for the organisation's overview
 * and for one queue, 90 days by hour and by day. The drawing figure: in Debian's chromium, from the answer's
 * period chosen (the API call included) to the frame after every chart of the Insights tab is drawn, median of 5.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import type { Store } from "@mainline/kit/store/index";
import { NatsServer } from "@mainline/testing";
import { InsightHours } from "@mainline/queue-coordinator";
import {
  countStep,
  createPlannerState,
  type InsightsHour,
  type Notice,
  type PullRequestEntry,
} from "@mainline/queue-coordinator/domain/index";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const CHROMIUM = "/usr/bin/chromium";
const { values } = parseArgs({
  options: {
    queues: { type: "string", default: "5" },
    prs: { type: "string", default: "50000" },
    rounds: { type: "string", default: "40" },
  },
});
const queueCount = Number(values.queues);
const prCount = Number(values.prs);
const rounds = Number(values.rounds);
const HOUR = 3_600_000;
const HOURS = 2160;
const now = Math.floor(Date.now() / HOUR) * HOUR + 30 * 60_000;
const first = now - (HOURS - 1) * HOUR;
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)] ?? 0;

/** One queue's 90 days: `prs` merges spread evenly, each after a run started 25 minutes earlier. */
function history(prs: number): InsightsHour[] {
  const idle = createPlannerState("main");
  const busy = { ...idle, prs: { 1: {} as PullRequestEntry } };
  let open: InsightsHour | null = null;
  const hours: InsightsHour[] = [];
  for (let i = 0; i < prs; i++) {
    const at = first + Math.floor((i / prs) * (HOURS - 1) * HOUR);
    const entry = { number: i + 1, id: `entry-${i}`, submittedAt: at - 40 * 60_000, history: [] };
    const start = countStep(open, {
      now: at - 25 * 60_000,
      before: idle,
      after: busy,
      decisions: [
        {
          type: "START_TEST_RUN",
          runId: `run-${i}`,
          kind: "main",
          batchId: "",
          lane: "",
          prs: [i + 1],
          dependentPrs: [],
        },
      ],
      notices: [],
    });
    const merged: Notice = {
      type: "PR_STATE_CHANGED",
      pr: i + 1,
      entryId: entry.id,
      from: "TESTS_PASSED",
      to: "MERGED",
      reason: "MERGED",
      at,
      runId: `run-${i}`,
      batched: false,
      isBisection: false,
      finalEntry: entry as unknown as PullRequestEntry,
    };
    const end = countStep(start.open, {
      now: at,
      before: busy,
      after: idle,
      decisions: [],
      notices: [merged],
    });
    hours.push(...start.sealed, ...end.sealed);
    open = end.open;
  }
  return open ? [...hours, open] : hours;
}

if (!existsSync(CHROMIUM)) {
  console.log(`skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
  process.exit(0);
}
const nats = await NatsServer.start();
const coordinator = await CoordinatorHarness.start({ nats, clock: () => new Date(now) });
const gw = await GatewayHarness.start({ queue: coordinator.address }, { nats });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  const token = await gw.organization("acme");
  const post = async (route: string, body: unknown) => {
    const response = await gw.post(route, body, token);
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<unknown>;
  };
  const repo = (q: number) => ({ host: "github.com", owner: "acme", name: `service-${q}` });
  for (let q = 0; q < queueCount; q++) await post("/createQueue", { repo: repo(q), targetBranch: "main" });
  const store: Store = coordinator.runtime.store;
  const hours = await InsightHours.open(store);
  const docs = await store.collection<{ _id: string; org: string }>("queues").find({ org: "acme" });
  const filling = Date.now();
  for (const doc of docs) await hours.put("acme", doc._id, history(Math.floor(prCount / queueCount)));
  console.log(
    `history: ${prCount} merged PRs over 90 days in ${docs.length} queues (${docs.length * HOURS} hour records, stored in ${((Date.now() - filling) / 1000).toFixed(0)} s)`,
  );

  const one = { repository: repo(0), targetBranch: "main" };
  const cases: [string, object][] = [
    ["organisation, 90d by hour", { period: "90d", bucket: "hour" }],
    ["organisation, 90d by day", { period: "90d", bucket: "day" }],
    ["one queue, 90d by hour", { ...one, period: "90d", bucket: "hour" }],
  ];
  for (const [name, body] of cases) {
    const times: number[] = [];
    const answer = (await post("/insights/queue", body)) as { buckets: { merged: number }[] };
    const merged = answer.buckets.reduce((s, b) => s + b.merged, 0);
    for (let i = 0; i < rounds; i++) {
      // Plain fetch: the harness's own post also checks each answer against the API document, in this process.
      const t = performance.now();
      const response = await fetch(`${gw.url}/insights/queue`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-token": token },
        body: JSON.stringify(body),
      });
      await response.json();
      times.push(performance.now() - t);
    }
    console.log(
      `POST /v1/insights/queue, ${name} (${merged} merged): p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms (${rounds} calls)`,
    );
  }

  // The probes are evaluated strings, which the page's CSP (rightly) forbids; they are not part of the page.
  const page = await (
    await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 900 } })
  ).newPage();
  await page.goto(`${gw.origin}/`);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Queues" }).waitFor();
  const draws: number[] = [];
  for (let i = 0; i < 5; i++) {
    await page.goto(`${gw.origin}/queue?repo=github.com/acme/service-0&branch=main&view=insights`);
    await page.locator("#chart-merged .u-over").waitFor();
    await page.locator("#insights-bucket").selectOption("hour");
    await page.waitForFunction(
      `document.querySelectorAll(".chart-plot[aria-label*='168 hours']").length === 6`,
    );
    const chosenAt = await page.evaluate<number>("performance.now()");
    await page.locator("#insights-period").selectOption("90d");
    // Drawn: every chart's table summary counts 2160 hours, and a frame has passed since.
    await page.waitForFunction(
      `[...document.querySelectorAll(".chart-plot")].filter((el) => el.getAttribute("aria-label")?.includes("${HOURS} hours")).length === 6`,
      null,
      { polling: "raf", timeout: 30_000 },
    );
    const drawnAt = await page.evaluate<number>(
      "new Promise((r) => requestAnimationFrame(() => r(performance.now())))",
    );
    draws.push(drawnAt - chosenAt);
  }
  console.log(
    `Insights tab, 90 days by hour (6 charts x 2160 buckets), 90 days chosen -> every chart drawn (the API call included) in chromium: median ${percentile(draws, 0.5).toFixed(0)} ms (rounds: ${draws.map((d) => d.toFixed(0)).join(", ")})`,
  );
} finally {
  await browser.close();
  await gw.stop();
  await coordinator.stop();
  await nats.stop();
}
