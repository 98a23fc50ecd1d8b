import { expect } from "chai";
import type { Browser, Page } from "playwright-core";
import { NatsServer } from "@mainline/testing";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { launchChromium, requireChromium, signedInPage } from "./browser-session.js";
import { opened } from "./queue-month.js";

const repo = { host: "github.com", owner: "acme", name: "stacked" };
const queue = { repo, targetBranch: "main" };

/**
 * Issue 28 on the web page: a stack of three (each PR's base branch the head branch of the one below), submitted
 * from its top through the real gateway and coordinator, shows on the queue page and each PR's page, bottom to top.
 */
describe("a stack of pull requests on the web page, in a real browser", function () {
  this.timeout(120_000);
  let nats: NatsServer;
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let browser: Browser;
  let page: Page;

  before(async function () {
    requireChromium();
    nats = await NatsServer.start();
    coordinator = await CoordinatorHarness.start({ nats });
    gw = await GatewayHarness.start({ queue: coordinator.address }, { nats });
    const token = await gw.organization("acme");
    const post = async (route: string, body: unknown) => {
      const response = await gw.post(route, body, token);
      expect(response.status, `${route}: ${await response.clone().text()}`).to.equal(200);
    };
    await post("/createQueue", { ...queue, concurrency: 1, batch: true, batchingMinSize: 1 });
    // change-1 on main, change-2 on change-1, change-3 on change-2: the events the code host sends.
    for (const [number, base] of [
      [1, "main"],
      [2, "change-1"],
      [3, "change-2"],
    ] as const)
      await post("/code-host/pull-request-events", opened(number, repo, base));
    await post("/submitPullRequest", { ...queue, pr: { number: 3 } });

    browser = await launchChromium();
    page = await signedInPage(browser, gw.origin, token);
  });

  after(async () => {
    await browser?.close();
    await gw?.stop();
    await coordinator?.stop();
    await nats?.stop();
  });

  it("lists the two PRs below the submitted top in the queue, each with its place in the stack", async () => {
    await page
      .getByRole("link", { name: new RegExp(`${repo.host}/${repo.owner}/${repo.name} main`) })
      .click();
    const rows = page.locator("li.pr");
    await rows.nth(2).waitFor();
    const stackOf = async (pr: number) =>
      (await page.locator(`li.pr[data-pr="${pr}"] .stack`).innerText()).trim();
    expect(await rows.evaluateAll((lis) => lis.map((li) => li.getAttribute("data-pr")))).to.deep.equal([
      "1",
      "2",
      "3",
    ]);
    expect(await stackOf(1)).to.equal("· stack [#1] ← #2 ← #3");
    expect(await stackOf(2)).to.equal("· stack #1 ← [#2] ← #3");
    expect(await stackOf(3)).to.equal("· stack #1 ← #2 ← [#3]");
  });

  it("says on a PR's page where it sits in its stack and how the stack lands", async () => {
    await page.getByRole("link", { name: /^#2 / }).click();
    const text = (await page.locator("#pr-stack").innerText()).trim();
    expect(text).to.equal(
      "Stacked: stack #1 ← [#2] ← #3. The stack is tested as one block and lands bottom first.",
    );
  });
});
