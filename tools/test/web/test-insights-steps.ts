import { expect } from "chai";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { accessibilityProblems } from "./page-checks.js";

/** The steps of web-page.browser.test.ts for the flaky tests page's charts and a test's strip and failure rate. */

interface Repo {
  host: string;
  owner: string;
  name: string;
}

type Api = (route: string, body: unknown) => Promise<Record<string, unknown>>;

interface InsightsAnswer {
  buckets: { start: string; runs: number; failures: number; flaky_tests: number; broken_tests: number }[];
  costliest: { test_id: string; name: string; html_url: string }[];
  total_costly_tests: number;
  next_cursor?: string;
}

const DAY = 86_400_000;

function report(failing: readonly string[], passing: readonly string[], retried: readonly string[] = []) {
  const cases = [
    ...failing.map(
      (n) => `<testcase classname="shop.checkout" name="${n}"><failure message="timeout"/></testcase>`,
    ),
    ...passing.map((n) => `<testcase classname="shop.checkout" name="${n}"/>`),
    // A retried test: one <testcase> per attempt (Gradle, pytest-rerunfailures): failed, then passed.
    ...retried.flatMap((n) => [
      `<testcase classname="shop.checkout" name="${n}" time="3"><failure message="flake"/></testcase>`,
      `<testcase classname="shop.checkout" name="${n}" time="3"/>`,
    ]),
  ];
  return `<testsuite name="shop">${cases.join("")}</testsuite>`;
}

/**
 * Hovers the centre of bucket `index` of a chart (its x range is half a bucket either side of the first and last
 * bucket, so bucket i's centre is at (i + 0.5) / n of the plot) and reads the legend's value of `series`.
 */
async function plotted(figure: Locator, index: number, count: number, series: string): Promise<string> {
  const over = figure.locator(".u-over");
  // The page refreshes itself; a chart drawn again between two steps is simply found again.
  for (let attempt = 1; ; attempt++) {
    try {
      await over.scrollIntoViewIfNeeded({ timeout: 5_000 });
      break;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
  const box = (await over.boundingBox())!;
  const page = figure.page();
  await page.mouse.move(box.x + (box.width * (index + 0.5)) / count, box.y + box.height / 2);
  const row = figure.locator(".u-legend .u-series", { has: page.getByText(series, { exact: true }) });
  // The legend follows the cursor on the next frame: a moment without a hovered bucket reads "—".
  for (let wait = 0; wait < 20; wait++) {
    const value = ((await row.locator(".u-value").textContent()) ?? "").trim();
    if (value !== "—") return value;
    await page.waitForTimeout(100);
  }
  return "—";
}

/**
 * A month of uploads through the real services (merge-queue failures of one test on three days, a retried flake,
 * 25 tests failing at once), then the flaky tests page: its charts plot what POST /v1/insights/tests answers (a
 * few buckets hovered), the costliest tests page on, and a test's page shows its strip and failure rate.
 */
export async function checkTestInsights(
  page: Page,
  ctx: { origin: string; repo: Repo; api: Api; shots: string },
): Promise<void> {
  const { origin, repo, api, shots } = ctx;
  const repoKey = `${repo.host}/${repo.owner}/${repo.name}`;
  const today = Math.floor(Date.now() / DAY) * DAY;
  const at = (daysAgo: number) => new Date(today - daysAgo * DAY + 9 * 3_600_000).toISOString();
  const bulk = Array.from({ length: 25 }, (_, i) => `renders page ${String(i).padStart(2, "0")}`);
  const uploads: [number, object, string][] = [
    [20, { context: "MERGE_QUEUE", pr_number: 31 }, report(["pays by card"], ["adds to basket"])],
    [12, { context: "CI" }, report([], ["pays by card", "adds to basket"], ["ships abroad"])],
    [8, { context: "MERGE_QUEUE", pr_number: 32 }, report(["pays by card"], ["adds to basket"])],
    [3, { context: "MERGE_QUEUE", pr_number: 33 }, report(["pays by card", ...bulk], ["adds to basket"])],
  ];
  for (const [daysAgo, extra, junit] of uploads) {
    const sha = String(daysAgo % 10).repeat(40);
    await api("/flaky-tests/upload", {
      repo,
      commit_sha: sha,
      branch: "main",
      run_started_at: at(daysAgo),
      junit: [junit],
      ...extra,
    });
  }
  const query = { repository: repo, period: "30d", bucket: "day", limit: 20 };
  const answer = (await api("/insights/tests", query)) as unknown as InsightsAnswer;
  expect(answer.costliest[0]?.name, "the test that failed three queue runs costs most").to.equal(
    "pays by card",
  );

  await page.goto(`${origin}/flaky-tests?repo=${encodeURIComponent(repoKey)}`);
  const runs = page.locator("#chart-test-runs");
  await runs.locator(".u-over").waitFor();
  const n = answer.buckets.length;
  for (const daysAgo of [20, 12, 3]) {
    const index = answer.buckets.findIndex((b) => b.start === new Date(today - daysAgo * DAY).toISOString());
    const bucket = answer.buckets[index]!;
    expect(bucket.runs, `runs ${daysAgo} days ago`).to.be.greaterThan(0);
    expect(await plotted(runs, index, n, "failed")).to.equal(`${bucket.failures} runs`);
    expect(await plotted(runs, index, n, "passed")).to.equal(`${bucket.runs - bucket.failures} runs`);
    const status = page.locator("#chart-flaky-broken");
    expect(await plotted(status, index, n, "flaky")).to.equal(`${bucket.flaky_tests} tests`);
  }
  // "ships abroad" turned flaky 12 days ago: the chart has a flaky test from that day on.
  expect(answer.buckets[n - 1 - 12]!.flaky_tests).to.be.greaterThan(0);

  const costliest = page.locator("#costliest tbody tr");
  await costliest.first().waitFor();
  expect(await costliest.count()).to.equal(20);
  expect(await costliest.first().locator("th").textContent()).to.equal("pays by card");
  expect(await costliest.first().textContent()).to.match(/pays by card3\s*3\s*/);
  await page.screenshot({ path: path.join(shots, "flaky-tests-insights.png"), fullPage: true });
  expect(await accessibilityProblems(page), "flaky tests page with its charts").to.deep.equal([]);
  // The next page, as the API's cursor gives it.
  const next = (await api("/insights/tests", {
    ...query,
    cursor: answer.next_cursor,
  })) as unknown as InsightsAnswer;
  await page.getByRole("button", { name: "Next" }).click();
  await page
    .locator("#costliest-pages", {
      hasText: `Tests 21–${20 + next.costliest.length} of ${answer.total_costly_tests}`,
    })
    .waitFor();
  expect(await costliest.first().locator("th").textContent()).to.equal(next.costliest[0]!.name);
  await page.getByRole("button", { name: "Previous" }).click();
  await page.locator("#costliest-pages", { hasText: "Tests 1–20" }).waitFor();

  // The costliest test's page: its strip and its failure rate, as POST /v1/insights/test answers them.
  const top = answer.costliest[0]!;
  await page.getByRole("link", { name: "pays by card" }).first().click();
  await page.locator("#run-strip").waitFor();
  const trend = (await api("/insights/test", {
    repository: repo,
    test_id: top.test_id,
    period: "30d",
    bucket: "day",
  })) as {
    buckets: { start: string; runs: number; failure_rate: number }[];
    recent_runs: { outcome: string }[];
  };
  const strip = await page
    .locator("#run-strip [data-outcome]")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-outcome")));
  expect(strip).to.deep.equal(trend.recent_runs.map((r) => r.outcome));
  expect(strip).to.deep.equal(["failed", "passed", "failed", "failed"]);
  const rate = page.locator("#chart-failure-rate");
  await rate.locator(".u-over").waitFor();
  const twelve = trend.buckets.findIndex((b) => b.start === new Date(today - 12 * DAY).toISOString());
  expect(await plotted(rate, twelve, trend.buckets.length, "failure rate")).to.equal("0 %");
  const eight = twelve + 4;
  expect(await plotted(rate, eight, trend.buckets.length, "failure rate")).to.equal("100 %");
  await page.screenshot({ path: path.join(shots, "test-insights.png"), fullPage: true });
  expect(await accessibilityProblems(page), "test page with its charts").to.deep.equal([]);
}
