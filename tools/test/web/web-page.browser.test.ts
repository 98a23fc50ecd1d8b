import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { freePortBlock } from "@mainline/testing";
import { BASE_FILES, DEMO_PULL_REQUESTS, JUNIT_GLOB, TEST_COMMAND } from "../../src/demo/demo-project.js";
import { LocalRemote } from "../../src/demo/local-remote.js";
import { runCli } from "@mainline/cli-src";
import { startSystem, waitForHttp, type RunningSystem } from "../../src/dev/system.js";
import { CapturedSink } from "../cli/mainline-fixture.js";
import { launchChromium, requireChromium } from "./browser-session.js";
import { accessibilityProblems, brokenWords } from "./page-checks.js";
import { checkQueueHistory, checkRepositoryPicker } from "./queue-history-steps.js";
import { checkTestInsights } from "./test-insights-steps.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/**
 * The README's screenshots (docs/web) are taken here, so they show what the page really does; only `make
 * screenshots` writes them there (MAINLINE_SCREENSHOTS_DIR): a test run leaves tracked files alone.
 */
const shotsDir = process.env.MAINLINE_SCREENSHOTS_DIR;
let SHOTS: string;
const repo = { host: "git.web.local", owner: "acme", name: "shop" };
const repoKey = `${repo.host}/${repo.owner}/${repo.name}`;
const good = DEMO_PULL_REQUESTS.find((pr) => pr.planned === "MERGED")!;
const bad = DEMO_PULL_REQUESTS.find((pr) => pr.planned === "TESTS_FAILED")!;

describe("the web page in a real browser, against the whole system as make dev starts it", function () {
  // The whole system starts in the hook: up to 357 s in a clean-clone run held to half a core (README "Tests").
  this.timeout(600_000);
  let dir: string;
  let system: RunningSystem | undefined;
  let browser: Browser | undefined;
  let origin: string;
  let page: Page;

  const api = async (route: string, body: unknown, token = system!.apiToken) => {
    const response = await fetch(`${system!.apiUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${route}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };

  before(async function () {
    // A CI machine without it fails here, never skips green (tools/scripts/ensure-deps.sh installs it).
    requireChromium();
    dir = await mkdtemp(path.join(tmpdir(), "mainline-web-"));
    SHOTS = shotsDir ? path.resolve(root, shotsDir) : path.join(dir, "screenshots");
    const base = await freePortBlock(8);
    system = await startSystem({
      root,
      dataDir: dir,
      batchRunnerWorkDir: path.join(dir, "batch-runner"),
      gatewayPort: base,
      natsPort: base + 1,
      grpcBasePort: base + 1,
      env: { LOG_LEVEL: "warn" },
      output: () => undefined,
      log: () => undefined,
    });
    origin = new URL(system.apiUrl).origin;
    expect(await waitForHttp(`${system.apiUrl}/readyz`, 120_000), "every service ready").to.equal(true);

    // A real git server with two pull requests: one that passes its tests, one that breaks them.
    const remote = await LocalRemote.create(path.join(dir, "git"), BASE_FILES, "main");
    for (const pr of [good, bad]) await remote.pushPullRequest(pr.number, pr.branch, pr.title, pr.changes);
    const out = new CapturedSink();
    const io = {
      stdout: out,
      stderr: out,
      env: { ...process.env, MAINLINE_URL: origin, MAINLINE_TOKEN: system.apiToken, MAINLINE_REPO: repoKey },
      cwd: remote.workDir,
      childStdio: "pipe" as const,
    };
    const mainline = async (...argv: string[]) => {
      const code = await runCli(argv, io);
      if (code !== 0) throw new Error(`mainline ${argv.join(" ")} exited ${code}: ${out.text}`);
    };
    await mainline(
      "repo",
      "connect",
      "--remote",
      remote.remoteDir,
      "--command",
      TEST_COMMAND,
      "--junit",
      JUNIT_GLOB,
    );
    await mainline("queue", "create", "--concurrency", "1", "--no-batch");
    // Paused, so the page sees the PRs PENDING before anything runs.
    await mainline("queue", "pause");
    for (const pr of [good, bad]) {
      await mainline("pr", "event", "opened", String(pr.number), "--head", pr.branch, "--title", pr.title);
      await mainline("submit", String(pr.number));
    }
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1100, height: 760 } })).newPage();
  });

  after(async () => {
    await browser?.close();
    await system?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("signs in with the API token and lists the organisation's queues", async () => {
    await page.goto(`${origin}/`);
    await page.screenshot({ path: path.join(SHOTS, "sign-in.png") });
    expect(await accessibilityProblems(page), "sign-in page").to.deep.equal([]);
    // By keyboard alone: the first Tab lands in the labelled token field, Enter submits.
    await page.keyboard.press("Tab");
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
            .id,
      ),
    ).to.equal("token");
    await page.keyboard.type(system!.apiToken);
    await page.keyboard.press("Enter");
    const row = page.getByRole("row", { name: new RegExp(`${repoKey} main`) });
    await row.waitFor();
    expect(await row.getByText("PAUSED").count()).to.equal(1);
    const cookie = (await page.context().cookies()).find((c) => c.name === "mainline_session")!;
    expect(cookie.httpOnly).to.equal(true);
    expect(cookie.sameSite).to.equal("Strict");
    await page.screenshot({ path: path.join(SHOTS, "queues.png") });
    expect(await accessibilityProblems(page), "queues page").to.deep.equal([]);
    // A phone's width: the table becomes one block per queue, nothing scrolls sideways.
    await page.setViewportSize({ width: 375, height: 700 });
    const overflow = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
        .document;
      return root.documentElement.scrollWidth;
    });
    expect(overflow).to.be.at.most(375);
    await page.screenshot({ path: path.join(SHOTS, "queues-narrow.png") });
    // The narrowest width that still shows the table: columns squeeze, words do not break.
    await page.setViewportSize({ width: 660, height: 760 });
    expect(await brokenWords(page), "words broken across lines at 660 px").to.deep.equal([]);
    await page.setViewportSize({ width: 1100, height: 760 });
  });

  it("watches a PR go from PENDING to MERGED without reloading, and a failed PR says why", async () => {
    await page.getByRole("link", { name: new RegExp(`${repoKey} main`) }).click();
    await page.locator(`li.pr[data-pr="${good.number}"][data-state="PENDING"]`).waitFor();
    // Nothing runs while paused: both PRs wait, each in the batch the planner made for it (no batching here).
    for (const pr of [good, bad])
      await page.locator(`.batch li.pr[data-pr="${pr.number}"]`, { hasText: "PENDING" }).waitFor();
    expect(await page.locator(".batch h3").allTextContents()).to.have.length(2);
    await page.screenshot({ path: path.join(SHOTS, "queue.png") });
    expect(await accessibilityProblems(page), "queue page").to.deep.equal([]);
    await page.getByRole("link", { name: new RegExp(`#${good.number} `) }).click();
    await page.locator("#pr-state", { hasText: "PENDING" }).waitFor();
    // A marker in the page's memory: a reload would lose it.
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1));
    const navigations: string[] = [];
    page.on("framenavigated", (frame) => navigations.push(frame.url()));
    // The failing PR's page is open from the start too, so it sees its run and keeps the link to its output.
    const failing = await page.context().newPage();
    // The gateway refuses this page's first read and event stream (as a busy one may): the page must recover.
    const refused = { stream: false, read: false };
    await failing.route("**/ui/events?*", (route) => {
      if (refused.stream) return route.continue();
      refused.stream = true;
      return route.fulfill({ status: 503, body: "busy" });
    });
    await failing.route("**/v1/getSubmittedPullRequest", (route) => {
      if (refused.read) return route.continue();
      refused.read = true;
      return route.fulfill({ status: 503, body: "busy" });
    });
    await failing.goto(
      `${origin}/pull-request?repo=${encodeURIComponent(repoKey)}&branch=main&pr=${bad.number}`,
    );
    await failing.locator("#pr-estimate", { hasText: "Position 2" }).waitFor();
    // Raised to high before anything runs, it overtakes the PR ahead (which has not started): cancel and
    // resubmit would have put it last instead. The timeline records who changed it.
    await failing.getByLabel("Priority").selectOption("high");
    await failing.getByRole("button", { name: "Set priority" }).click();
    await failing.locator("#pr-estimate", { hasText: "Position 1" }).waitFor({ timeout: 5_000 });
    await failing.locator(".timeline li.priority-change", { hasText: /medium → high by token:/ }).waitFor();
    await failing.screenshot({ path: path.join(SHOTS, "pull-request-priority.png"), fullPage: true });
    expect(await accessibilityProblems(failing), "PR page in the queue").to.deep.equal([]);
    // The good PR's page hears the change too, with no reload: it is now second.
    await page.locator("#pr-estimate", { hasText: "Position 2" }).waitFor({ timeout: 5_000 });
    await api("/updateQueue", { repo, targetBranch: "main", state: "RUNNING" });
    await page.locator("#pr-state", { hasText: "MERGED" }).waitFor({ timeout: 120_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).to.equal(1);
    expect(navigations, "no reload, no navigation").to.deep.equal([]);
    // The stored history, every state change with its reason: submitted, queued, tested, merged.
    const steps = await page.locator(".timeline li").allTextContents();
    expect(steps[0]).to.match(/^NOT_READY .* — SUBMITTED$/);
    expect(steps.some((t) => t.startsWith("PENDING "))).to.equal(true);
    expect(steps.some((t) => t.startsWith("TESTING "))).to.equal(true);
    expect(steps.at(-1)).to.match(/^MERGED /);
    await page.screenshot({ path: path.join(SHOTS, "pull-request-merged.png"), fullPage: true });

    // (The estimate #4 gets while under test may last only as long as its short run: the gateway tests check it.)
    await failing.locator("#pr-state", { hasText: "FAILED" }).waitFor({ timeout: 120_000 });
    expect(refused, "the first stream and read were refused, and the page recovered").to.deep.equal({
      stream: true,
      read: true,
    });
    expect(await failing.locator("#pr-reason").textContent()).to.equal("Failed: TESTS_FAILED");
    await failing.close();

    // A fresh page, after the PR left the queue: the run is found from the PR's failureDetailsUrl alone.
    const reopened = await page.context().newPage();
    await reopened.goto(
      `${origin}/pull-request?repo=${encodeURIComponent(repoKey)}&branch=main&pr=${bad.number}`,
    );
    const output = reopened.locator("#run-output");
    // The repository's own test output (node's spec reporter), read from GET /v1/test-runs/{id}/output.
    await output.waitFor({ timeout: 10_000 });
    const text = (await output.textContent()) ?? "";
    expect(text).to.contain("charges every started kilo");
    expect(text).to.match(/fail 1/);
    expect(await reopened.locator(".timeline li").last().textContent()).to.match(
      /^FAILED .* — TESTS_FAILED \(run \S+\)$/,
    );
    // The runs the history names: test branch, the PRs tested with it, though the PR is no longer in the queue.
    await reopened.locator(".run-details", { hasText: "Test branch" }).waitFor();
    const failedRuns = reopened.locator("ol.runs > li");
    expect(await failedRuns.count()).to.equal(1);
    expect(await failedRuns.first().textContent()).to.match(new RegExp(`FAILED.*Tested with#${bad.number}`));
    const link = reopened.getByRole("link", { name: "The run's output" });
    expect(await link.getAttribute("href")).to.match(/^\/v1\/test-runs\/[^/]+\/output$/);
    await reopened.screenshot({ path: path.join(SHOTS, "pull-request-failed.png"), fullPage: true });
    expect(await accessibilityProblems(reopened), "failed PR page").to.deep.equal([]);
    await reopened.close();
  });

  it("keeps the queue's merged and failed PRs, finds one, and shows and changes the queue's settings", async () => {
    await checkQueueHistory(page, { origin, repo, good, bad, api, shots: SHOTS });
  });

  it("opens a failing test from its html_url and sets a quarantine override that shows at once", async () => {
    const junit =
      '<testsuite name="shop"><testcase classname="shop.cart" name="adds up prices">' +
      '<failure message="expected 12, got 8">AssertionError: expected 12, got 8</failure></testcase></testsuite>';
    // Overrides only matter where quarantining is on.
    await api("/flaky-tests/update-repository-settings", { repo, quarantining_enabled: true });
    await api("/flaky-tests/upload", {
      repo,
      commit_sha: "a".repeat(40),
      branch: "main",
      context: "CI",
      junit: [junit],
    });
    const end = new Date(Date.now() + 60_000);
    const listed = await api("/flaky-tests/list-failing-tests", {
      repo,
      org_url_slug: "dev",
      start_time: new Date(end.getTime() - 86_400_000).toISOString(),
      end_time: end.toISOString(),
      page_query: { page_size: 10 },
    });
    const test = (listed.tests as { id: string; html_url: string; name: string }[]).find(
      (t) => t.name === "adds up prices",
    )!;
    expect(new URL(test.html_url).origin, "html_url points at this gateway").to.equal(origin);
    // A later run that passes on a PR's branch, and a ticket: the page lists both runs, newest first.
    await api("/flaky-tests/upload", {
      repo,
      commit_sha: "b".repeat(40),
      branch: "feature/cart",
      pr_number: 7,
      context: "CI",
      run_started_at: new Date(Date.now() + 1_000).toISOString(),
      junit: [junit.replace(/<failure[^>]*>[^<]*<\/failure>/, "")],
    });
    const ticket = "https://tracker.example/SHOP-12";
    await api("/flaky-tests/link-ticket", { repo, test_id: test.id, url: ticket });
    await page.goto(test.html_url);
    await page.getByRole("heading", { name: "adds up prices" }).waitFor();
    const runs = page.locator(".recent-runs tbody tr");
    expect(await runs.count()).to.equal(2);
    expect(await runs.nth(0).textContent()).to.match(/passed.*feature\/cart · PR #7/);
    expect(await runs.nth(1).textContent()).to.match(/failed.*CI · main/);
    // The summary replaces volatile details (numbers) with placeholders, so alike failures group together.
    expect(await page.locator("li", { hasText: "expected <n>, got <n>" }).textContent()).to.match(
      / 1×, last /,
    );
    expect(await page.getByRole("link", { name: ticket }).getAttribute("href")).to.equal(ticket);
    expect(await page.locator("#test-quarantined").textContent()).to.equal("no");
    // Failed every run on main so far, yet healthy: the page says what the status is judged on.
    expect(await page.locator(".summary").textContent()).to.include(
      "(status judged on the default branch and the merge queue)",
    );
    expect(await page.locator(".run-details").textContent()).to.include(
      "(failure rate over every run, PR branches included)",
    );
    await page.getByLabel("Always quarantine").check();
    await page.getByRole("button", { name: "Save override" }).click();
    await page.locator("#test-quarantined", { hasText: "yes" }).waitFor({ timeout: 5_000 });
    // Opened again, the form shows the override the test has: saving another choice is never blind.
    await page.reload();
    await page.locator("#test-quarantined", { hasText: "yes (always, by override)" }).waitFor();
    expect(await page.getByLabel("Always quarantine").isChecked()).to.equal(true);
    expect(await page.getByLabel("Automatic (the repository's rules decide)").isChecked()).to.equal(false);
    await page.screenshot({ path: path.join(SHOTS, "test.png"), fullPage: true });
    expect(await accessibilityProblems(page), "test page").to.deep.equal([]);
    // The list of failing tests links to the same page.
    await page.getByRole("link", { name: `Flaky tests of ${repoKey}` }).click();
    await page.locator("table[aria-describedby]").getByRole("link", { name: "adds up prices" }).waitFor();
    expect(await page.locator("#status-scope").textContent()).to.equal(
      "How to read it: status judged on the default branch and the merge queue; failure rate over every run, PR branches included.",
    );
    await page.screenshot({ path: path.join(SHOTS, "flaky-tests.png"), fullPage: true });
    expect(await accessibilityProblems(page), "flaky tests page").to.deep.equal([]);

    await checkRepositoryPicker(page, { origin, repo, shots: SHOTS });
    await checkTestInsights(page, { origin, repo, api, shots: SHOTS });
  });

  it("shows another organisation's token none of it", async () => {
    const made = await fetch(`${system!.apiUrl}/admin/organizations`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": system!.apiToken },
      body: JSON.stringify({ slug: "globex", name: "Globex" }),
    });
    expect(made.status).to.be.within(200, 201);
    const { token } = await api("/admin/tokens", { org: "globex", description: "web test" });
    const other = await browser!.newPage();
    try {
      await other.goto(`${origin}/`);
      await other.getByLabel("API token").fill(token as string);
      await other.getByRole("button", { name: "Sign in" }).click();
      await other.getByRole("heading", { name: "No queue yet" }).waitFor();
      expect(await accessibilityProblems(other), "empty queues page").to.deep.equal([]);
      await other.goto(
        `${origin}/pull-request?repo=${encodeURIComponent(repoKey)}&branch=main&pr=${good.number}`,
      );
      await other.locator("[role=alert]").first().waitFor();
      expect(await other.locator("#pr-state").count(), "acme's PR is not shown").to.equal(0);
    } finally {
      await other.close();
    }
  });

  it("pauses and resumes a queue from the queues page, and cancels a PR from its page", async () => {
    await page.goto(`${origin}/`);
    const row = page.getByRole("row", { name: new RegExp(`${repoKey} main`) });
    await row.getByText("RUNNING").waitFor();
    await page.getByRole("button", { name: `Pause ${repoKey} main` }).click();
    // The row follows the queue's own event: the state the coordinator now has, and the button to undo it.
    await row.getByText("PAUSED").waitFor({ timeout: 5_000 });
    await page.getByRole("button", { name: `Resume ${repoKey} main` }).waitFor();
    expect((await api("/getQueue", { repo, targetBranch: "main" })).state).to.equal("PAUSED");

    // The failed PR submitted again waits in the paused queue; its page cancels it.
    await api("/submitPullRequest", { repo, targetBranch: "main", pr: { number: bad.number } });
    await page.goto(
      `${origin}/pull-request?repo=${encodeURIComponent(repoKey)}&branch=main&pr=${bad.number}`,
    );
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.locator("#pr-state", { hasText: "CANCELLED" }).waitFor({ timeout: 5_000 });
    expect(await page.locator("#pr-reason").textContent()).to.match(/^Cancelled: /);
    expect(await page.getByRole("button", { name: "Cancel" }).count(), "nothing left to cancel").to.equal(0);
    expect(await page.locator(".timeline li").last().textContent()).to.match(/^CANCELLED /);

    await page.goto(`${origin}/`);
    await page.getByRole("button", { name: `Resume ${repoKey} main` }).click();
    await row.getByText("RUNNING").waitFor({ timeout: 5_000 });
    await page.getByRole("button", { name: `Pause ${repoKey} main` }).waitFor();
    expect((await api("/getQueue", { repo, targetBranch: "main" })).state).to.equal("RUNNING");
  });

  it("signs out, and the old session is refused", async () => {
    const before = (await page.context().cookies()).find((c) => c.name === "mainline_session")!;
    await page.goto(`${origin}/`);
    // The queue list first: the last hour's work (#1 merged, #4 failed, then cancelled twice above: API, PR page).
    const row = page.getByRole("row", { name: new RegExp(`${repoKey} main`) });
    await row
      .locator(".last-hour", { hasText: /^1 merged, 1 failed, 2 cancelled$/ })
      .waitFor({ timeout: 5_000 });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API token").waitFor();
    const replay = await fetch(`${origin}/ui/session`, {
      headers: { cookie: `mainline_session=${before.value}` },
    });
    expect(replay.status).to.equal(401);
    const listed = await fetch(`${system!.apiUrl}/listQueues`, {
      method: "POST",
      headers: { cookie: `mainline_session=${before.value}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(listed.status).to.equal(401);
  });
});
