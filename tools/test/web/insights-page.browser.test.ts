import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import type { QueueInsightsResponse } from "@mainline/contract";
import { NatsServer } from "@mainline/testing";
import { runCli } from "@mainline/cli-src";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CapturedSink } from "../cli/mainline-fixture.js";
import { launchChromium, requireChromium, signedInPage } from "./browser-session.js";
import { accessibilityProblems } from "./page-checks.js";
import { DAY_MS, simulateQueueMonth, type DayTally, type SimClock } from "./queue-month.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** As in web-page.browser.test.ts: only `make screenshots` writes into docs/web. */
const shotsDir = process.env.MAINLINE_SCREENSHOTS_DIR;
const repo = { host: "github.com", owner: "acme", name: "shop" };
const repoKey = `${repo.host}/${repo.owner}/${repo.name}`;
const queue = { repo, targetBranch: "main" };
const DAYS = 30;

describe("queue insights in a real browser, from a month of queue history made through the real services", function () {
  // A month of history goes through the real services in the hook: about 30 s beside three other test files, but
  // up to 461 s in a clean-clone run held to half a core (README "Tests").
  this.timeout(600_000);
  const clock: SimClock = { now: 0 };
  let nats: NatsServer;
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let token: string;
  let browser: Browser;
  let page: Page;
  let dir: string;
  let shots: string;
  let tally: Map<string, DayTally>;
  let month: QueueInsightsResponse;

  const send = async (route: string, body: unknown) => {
    const response = await gw.post(route, body, token);
    return { status: response.status, text: await response.text() };
  };
  const post = async (route: string, body: unknown) => {
    const { status, text } = await send(route, body);
    if (status !== 200) throw new Error(`${route}: ${status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const insights = async (body: object) =>
    (await post("/insights/queue", body)) as unknown as QueueInsightsResponse;

  before(async function () {
    requireChromium();
    dir = await mkdtemp(path.join(tmpdir(), "mainline-insights-"));
    shots = shotsDir ? path.resolve(root, shotsDir) : dir;
    // The month ends today: the first day is 29 days before today's midnight (UTC).
    const start = Math.floor(Date.now() / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
    clock.now = start;
    nats = await NatsServer.start();
    coordinator = await CoordinatorHarness.start({ nats, clock: () => new Date(clock.now) });
    gw = await GatewayHarness.start({ queue: coordinator.address }, { nats });
    token = await gw.organization("acme");
    tally = await simulateQueueMonth({ post, clock, queue, start, days: DAYS });
    // "Now" is the last day's evening: the page and the API read the coordinator's clock.
    clock.now = start + (DAYS - 1) * DAY_MS + 20 * 3_600_000;
    month = await insights({ repository: repo, targetBranch: "main", period: "30d", bucket: "day" });
    browser = await launchChromium();
    page = await signedInPage(browser, gw.origin, token);
  });

  after(async () => {
    await browser?.close();
    await gw?.stop();
    await coordinator?.stop();
    await nats?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("counts, per day, what the month did: merged, failed, runs, paused time", () => {
    expect(month.queues).to.deep.equal([`${repoKey} main`]);
    expect(month.buckets).to.have.length(DAYS);
    for (const b of month.buckets) {
      const day = tally.get(b.start.slice(0, 10));
      expect(day, b.start).to.not.equal(undefined);
      expect(b.merged, b.start).to.equal(day!.merged);
      expect(b.failed.TESTS_FAILED ?? 0, b.start).to.equal(day!.failed);
      expect(b.ciRuns, b.start).to.equal(day!.runsReported);
      expect(b.ciRunsAlone, b.start).to.equal(day!.merged + day!.failed);
      expect(b.pausedMinutes, b.start).to.equal(day!.pausedMinutes);
      expect(b.depthEnd, b.start).to.equal(0);
    }
    // Bad PRs fail a batch: bisections find them, and batching still tests fewer times than PR by PR would.
    const sum = (f: (b: QueueInsightsResponse["buckets"][number]) => number) =>
      month.buckets.reduce((s, b) => s + f(b), 0);
    expect(sum((b) => b.bisectionRuns)).to.be.greaterThan(0);
    expect(sum((b) => b.ciRunsSaved)).to.be.greaterThan(0);
    expect(month.buckets.every((b) => b.timeToMerge.fromSubmittedP50 !== null)).to.equal(true);
  });

  it("refuses bad requests with the field and the rule, and another queue it does not have", async () => {
    const bad = await send("/insights/queue", { period: "1y", bucket: "day" });
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain("period").and.contain("24h, 7d, 30d, 90d");
    expect((await send("/insights/queue", { period: "7d" })).text).to.contain("bucket");
    const long = await send("/insights/queue", {
      repository: { ...repo, name: "x".repeat(300) },
      period: "7d",
      bucket: "day",
    });
    expect(long.status).to.equal(400);
    expect(long.text).to.contain("repository.name");
    const unknown = await send("/insights/queue", {
      repository: { ...repo, name: "other" },
      period: "7d",
      bucket: "day",
    });
    expect(unknown.status).to.equal(404);
  });

  /** Hovers a chart at a bucket's centre and reads a series' value from its legend. */
  const hovered = async (chart: string, start: string, label: string): Promise<string> => {
    const over = page.locator(`#${chart} .u-over`);
    await over.scrollIntoViewIfNeeded();
    const box = (await over.boundingBox())!;
    const times = month.buckets.map((b) => Date.parse(b.start));
    const half = DAY_MS / 2;
    const [min, max] = [times[0]! - half, times.at(-1)! + half];
    const x = box.x + ((Date.parse(start) - min) / (max - min)) * box.width;
    await page.mouse.move(x, box.y + box.height / 2);
    const rows = page.locator(`#${chart} .u-legend .u-series`);
    for (let i = 0; i < (await rows.count()); i++) {
      const row = rows.nth(i);
      if ((await row.locator(".u-label").innerText()).trim() === label)
        return (await row.locator(".u-value").innerText()).trim();
    }
    throw new Error(`no series ${label} in ${chart}`);
  };

  it("plots on the queue's Insights tab what the API answers, with a table view", async () => {
    await page.goto(`${gw.origin}/queue?repo=${repoKey}&branch=main&view=insights`);
    await page.locator("#insights-period").selectOption("30d");
    await page.locator("#chart-merged .u-over").waitFor();
    const pauseDay = month.buckets.find((b) => b.pausedMinutes > 0)!;
    const busiest = [...month.buckets].sort((a, b) => b.merged - a.merged)[0]!;
    for (const b of [busiest, month.buckets[0]!, pauseDay]) {
      expect(await hovered("chart-merged", b.start, "merged")).to.equal(`${b.merged} PRs`);
      expect(await hovered("chart-ci-runs", b.start, "CI runs")).to.equal(`${b.ciRuns} runs`);
    }
    expect(await hovered("chart-held", pauseDay.start, "paused")).to.equal("180 min");
    const totals = page.locator("#insights-totals");
    expect(await totals.locator('[data-total="merged"]').innerText()).to.equal(
      String(month.buckets.reduce((s, b) => s + b.merged, 0)),
    );
    // The table view: one row per day, the same numbers for a screen reader.
    await page.getByText("Table: Time to merge").click();
    const row = page.locator("#chart-time-to-merge .chart-table tbody tr").first();
    const p50 = month.buckets[0]!.timeToMerge.fromReadyP50!;
    expect(await row.locator("th").innerText()).to.equal(month.buckets[0]!.start.slice(0, 10));
    expect(Number(await row.locator("td").first().innerText())).to.be.closeTo(p50, 0.06);
    expect(await accessibilityProblems(page), "insights tab").to.deep.equal([]);
    await page.getByText("Table: Time to merge").click();
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(shots, "insights-queue.png"), fullPage: true });
  });

  it("shows the organisation's overview, and the CLI prints the same figures", async () => {
    await page.goto(`${gw.origin}/insights`);
    await page.locator("#insights-period").selectOption("30d");
    await page.locator("#chart-merged .u-over").waitFor();
    const overview = await insights({ period: "30d", bucket: "day" });
    expect(overview.buckets.map((b) => b.merged)).to.deep.equal(month.buckets.map((b) => b.merged));
    const last = overview.buckets.at(-1)!;
    expect(await hovered("chart-merged", last.start, "merged")).to.equal(`${last.merged} PRs`);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(shots, "insights-overview.png"), fullPage: true });

    const out = new CapturedSink();
    const io = {
      stdout: out,
      stderr: out,
      env: { ...process.env, MAINLINE_URL: gw.origin, MAINLINE_TOKEN: token },
      cwd: dir,
      childStdio: "pipe" as const,
    };
    const args = ["insights", "queue", "--repo", repoKey, "--target", "main", "--period", "30d"];
    expect(await runCli(["--json", ...args], io)).to.equal(0);
    expect(JSON.parse(out.text)).to.deep.equal(month);
    out.text = "";
    expect(await runCli(args, io)).to.equal(0);
    const lines = out.text.trim().split("\n");
    expect(lines[1]).to.match(/^DAY \(UTC\)\s+MERGED\s+FAILED/);
    const first = month.buckets[0]!;
    expect(lines[2]).to.match(new RegExp(`^${first.start.slice(0, 10)}\\s+${first.merged}\\s`));
    out.text = "";
    expect(await runCli(["insights", "queue", "--period", "1y"], io)).to.equal(2);
    expect(out.text).to.contain("--period must be one of 24h, 7d, 30d, 90d");
  });
});
