/**
 * Web page benchmark: what the browser downloads (JS + CSS, gzipped, as the gateway serves them), how long the
 * queue page takes to show a queue of 500 PRs, and how long a change takes to reach an open page.
 *
 *   node --conditions=mainline-source --import tsx tools/bench/web-bench.ts   (--prs 500 --rounds 5 --changes 10)
 *
 * The queue-coordinator and the gateway run in this process on one nats-server (the test harnesses); the page
 * runs in Debian's chromium (/usr/bin/chromium) driven by playwright-core. First render: from the start of
 * the navigation to the frame in which every PR of the queue is in the page (performance.now() in the page,
 * polled every animation frame), median of the rounds. Update delay: from the API call that cancels a PR to
 * the moment the page's DOM no longer shows it (a MutationObserver's timestamp; same machine, same clock).
 */
import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { NatsServer } from "@mainline/testing";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const CHROMIUM = "/usr/bin/chromium";
const { values } = parseArgs({
  options: {
    prs: { type: "string", default: "500" },
    rounds: { type: "string", default: "5" },
    changes: { type: "string", default: "10" },
  },
});
const prCount = Number(values.prs);
const rounds = Number(values.rounds);
const changes = Number(values.changes);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { repo, targetBranch: "main" };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function pageWeight(): Promise<{ js: number; css: number }> {
  const dir = path.join(root, "web", "dist", "assets");
  const files = await readdir(dir);
  const size = async (ext: string) => {
    let total = 0;
    for (const f of files.filter((f) => f.endsWith(`${ext}.gz`)))
      total += (await stat(path.join(dir, f))).size;
    return total;
  };
  return { js: await size(".js"), css: await size(".css") };
}

if (!existsSync(CHROMIUM)) {
  console.log(`skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
  process.exit(0);
}
const weight = await pageWeight();
const nats = await NatsServer.start();
const coordinator = await CoordinatorHarness.start({ nats });
const gw = await GatewayHarness.start({ queue: coordinator.address }, { nats });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  const token = await gw.organization("acme");
  const ok = async (route: string, body: unknown) => {
    const response = await gw.post(route, body, token);
    if (!response.ok) throw new Error(`${route}: ${response.status} ${await response.text()}`);
  };
  await ok("/createQueue", { ...queue, concurrency: 2 });
  // Paused: without a repository connection nothing would run anyway, and the queue stays exactly 500 deep.
  await ok("/updateQueue", { ...queue, state: "PAUSED" });
  for (let n = 1; n <= prCount; n++) await ok("/submitPullRequest", { ...queue, pr: { number: n } });

  // The probes below are evaluated strings, which the page's CSP (rightly) forbids; they are not part of the page.
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  await page.goto(`${gw.origin}/`);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Queues" }).waitFor();
  const url = `${gw.origin}/queue?repo=github.com/acme/widgets&branch=main`;
  const renders: number[] = [];
  for (let i = 0; i < rounds; i++) {
    await page.goto(url, { waitUntil: "commit" });
    // Strings: these run in the page, whose DOM types this Node program does not have.
    await page.waitForFunction(`document.querySelectorAll("li.pr").length >= ${prCount}`, null, {
      polling: "raf",
      timeout: 30_000,
    });
    renders.push(await page.evaluate<number>("performance.now()"));
  }

  const delays: number[] = [];
  for (let i = 0; i < changes; i++) {
    const pr = prCount - i;
    await page.evaluate(`{
      globalThis.goneAt = undefined;
      const observer = new MutationObserver(() => {
        if (!document.querySelector('li.pr[data-pr="${pr}"]')) {
          globalThis.goneAt = Date.now();
          observer.disconnect();
        }
      });
      observer.observe(document.body, { childList: true, subtree: true });
    }`);
    const sent = Date.now();
    await ok("/cancelPullRequest", { ...queue, pr: { number: pr } });
    await page.waitForFunction(
      () => (globalThis as unknown as { goneAt?: number }).goneAt !== undefined,
      null,
      {
        timeout: 10_000,
      },
    );
    const goneAt = await page.evaluate(() => (globalThis as unknown as { goneAt: number }).goneAt);
    delays.push(goneAt - sent);
  }
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  console.log(
    `page weight (gzipped): JS ${kb(weight.js)} + CSS ${kb(weight.css)} = ${kb(weight.js + weight.css)}`,
  );
  console.log(
    `queue page, ${prCount} PRs, first render: median ${median(renders).toFixed(0)} ms ` +
      `(rounds: ${renders.map((r) => r.toFixed(0)).join(", ")})`,
  );
  console.log(
    `update delay, cancel -> page: median ${median(delays)} ms, max ${Math.max(...delays)} ms ` +
      `(${changes} changes on the ${prCount}-PR queue)`,
  );
} finally {
  await browser.close();
  await gw.stop();
  await coordinator.stop();
  await nats.stop();
}
