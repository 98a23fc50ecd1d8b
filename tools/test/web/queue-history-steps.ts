import { expect } from "chai";
import path from "node:path";
import type { Page } from "playwright-core";
import { accessibilityProblems } from "./page-checks.js";

/** The steps of web-page.browser.test.ts for a queue's history and settings and the repository picker. */

interface Repo {
  host: string;
  owner: string;
  name: string;
}

/** After a queue merged `good` and failed `bad`: its page keeps both, finds one, shows and changes its settings. */
export async function checkQueueHistory(
  page: Page,
  ctx: {
    origin: string;
    repo: Repo;
    good: { number: number; branch: string };
    bad: { number: number; branch: string };
    api: (route: string, body: unknown) => Promise<Record<string, unknown>>;
    /** Where the README's screenshots are written. */
    shots: string;
  },
): Promise<void> {
  const { origin, repo, good, bad, api, shots } = ctx;
  const repoKey = `${repo.host}/${repo.owner}/${repo.name}`;
  await page.goto(`${origin}/queue?repo=${encodeURIComponent(repoKey)}&branch=main`);
  const history = page.locator("section.history");
  // Nothing waits any more, and what left the queue is still there, the latest first.
  await history.locator(`li.pr-ended[data-pr="${bad.number}"][data-state="FAILED"]`).waitFor();
  await history.locator(`li.pr-ended[data-pr="${good.number}"][data-state="MERGED"]`).waitFor();
  expect(await history.locator("li.pr-ended").count()).to.equal(2);
  expect(await history.locator(`li.pr-ended[data-pr="${bad.number}"]`).textContent()).to.contain(
    "TESTS_FAILED",
  );
  await page.screenshot({ path: path.join(shots, "queue-history.png"), fullPage: true });
  expect(await accessibilityProblems(page), "queue page with its history").to.deep.equal([]);
  // Search by branch, then by number; a failed PR is one click away.
  await page.getByLabel("Number, branch or author").fill(bad.branch);
  await page.getByRole("button", { name: "Search" }).click();
  await history.locator(`li.pr-ended[data-pr="${good.number}"]`).waitFor({ state: "detached" });
  expect(await history.locator("li.pr-ended").count()).to.equal(1);
  await page.getByLabel("Number, branch or author").fill(`#${good.number}`);
  await page.getByRole("button", { name: "Search" }).click();
  await history.locator(`li.pr-ended[data-pr="${bad.number}"]`).waitFor({ state: "detached" });
  await history.locator(`li.pr-ended[data-pr="${good.number}"]`).waitFor();
  await page.getByLabel("Number, branch or author").fill("");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByLabel("Ended").selectOption("FAILED");
  await history.locator(`li.pr-ended[data-pr="${good.number}"]`).waitFor({ state: "detached" });
  await history.getByRole("link", { name: new RegExp(`#${bad.number} `) }).waitFor();
  await page.getByLabel("Number, branch or author").fill("nobody-at-all");
  await page.getByRole("button", { name: "Search" }).click();
  await history.getByText("No pull request that left this queue matches.").waitFor();

  // The settings as the queue has them; a value the gateway refuses says why; a good one is saved.
  const concurrency = page.getByLabel("Test runs at a time");
  expect(await concurrency.inputValue()).to.equal("1");
  expect(await page.getByLabel("Batching").isChecked()).to.equal(false);
  await concurrency.fill("0");
  await page.getByRole("button", { name: "Save settings" }).click();
  await page
    .locator(".settings [role=alert]", { hasText: /concurrency: must be an integer from 1 to 1000/ })
    .waitFor();
  await concurrency.fill("2");
  await page.getByRole("button", { name: "Save settings" }).click();
  await page.locator(".settings", { hasText: "Saved." }).waitFor();
  expect((await api("/getQueue", { repo, targetBranch: "main" })).concurrency).to.equal(2);
  await page.locator("#main .summary", { hasText: "2 at a time" }).waitFor();
  await api("/updateQueue", { repo, targetBranch: "main", concurrency: 1 });

  // A PR that leaves the queue while the page is open joins its history with no reload.
  await page.getByLabel("Ended").selectOption("");
  await page.getByLabel("Number, branch or author").fill("");
  await page.getByRole("button", { name: "Search" }).click();
  await history.locator("li.pr-ended").nth(1).waitFor();
  await api("/submitPullRequest", { repo, targetBranch: "main", pr: { number: bad.number } });
  await api("/cancelPullRequest", { repo, targetBranch: "main", pr: { number: bad.number } });
  await history
    .locator("li.pr-ended")
    .first()
    .and(page.locator(`[data-pr="${bad.number}"][data-state="CANCELLED"]`))
    .waitFor({ timeout: 5_000 });
  expect(await history.locator("li.pr-ended").count()).to.equal(3);
}

/** The flaky-tests page offers the organisation's repositories, and says so when one has no results. */
export async function checkRepositoryPicker(
  page: Page,
  ctx: { origin: string; repo: Repo; shots: string },
): Promise<void> {
  const { origin, repo, shots } = ctx;
  const repoKey = `${repo.host}/${repo.owner}/${repo.name}`;
  // The organisation's repositories to choose from, not a key to type; a wrong one says so.
  await page.goto(`${origin}/flaky-tests`);
  const picker = page.getByLabel("Repository");
  await picker.locator(`option[value="${repoKey}"]`).waitFor({ state: "attached" });
  expect(await picker.locator("option:not([disabled])").allTextContents()).to.deep.equal([repoKey]);
  await picker.selectOption(repoKey);
  await page.getByRole("button", { name: "Show" }).click();
  await page.locator("table[aria-describedby]").getByRole("link", { name: "adds up prices" }).waitFor();
  await page.screenshot({ path: path.join(shots, "flaky-repository-picker.png") });
  await page.goto(`${origin}/flaky-tests?repo=${encodeURIComponent(`${repo.host}/${repo.owner}/shoop`)}`);
  await page.getByRole("heading", { name: `No test results for ${repo.host}/${repo.owner}/shoop` }).waitFor();
  expect(await page.getByText("No failing test in this window").count()).to.equal(0);
  expect(await accessibilityProblems(page), "flaky tests page, unknown repository").to.deep.equal([]);
  await page.goto(`${origin}/flaky-tests?repo=nonsense`);
  await page.locator("#repo-problem", { hasText: "“nonsense” is not a repository" }).waitFor();
  expect(await page.getByText("is required").count()).to.equal(0);
}
