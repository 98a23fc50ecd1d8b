import { expect } from "chai";
import { eventually } from "@mainline/testing";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "resubmits" };
const queue = { repo, targetBranch: "main" };

function prEvent(number: number, action: string, sha: string) {
  return {
    action,
    number,
    pull_request: {
      title: `Change ${number}`,
      state: "open",
      merged: false,
      user: { login: "dev" },
      head: { ref: `feature-${number}`, sha },
      base: { ref: "main" },
    },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      html_url: "https://github.com/acme/resubmits",
    },
  };
}

describe("resubmitting a merged pull request (gateway -> queue-coordinator)", function () {
  this.timeout(30_000);
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let token: string;

  const call = async (path: string, body: unknown) => {
    const response = await gw.post(path, body, token);
    return { status: response.status, text: await response.text() };
  };
  const state = async (number: number) =>
    (
      JSON.parse((await call("/getSubmittedPullRequest", { ...queue, pr: { number } })).text) as {
        state: string;
      }
    ).state;
  const passRunOf = async (number: number) => {
    const testRunId = await eventually(async () => {
      const q = JSON.parse((await call("/getQueue", queue)).text) as {
        enqueuedPullRequests: { prNumber: number; testRunId?: string }[];
      };
      const id = q.enqueuedPullRequests.find((p) => p.prNumber === number)?.testRunId;
      expect(id, `a test run for #${number}`).to.be.a("string");
      return id as string;
    });
    expect((await call("/reportTestRun", { testRunId, passed: true })).status).to.equal(200);
    await eventually(async () => expect(await state(number)).to.equal("MERGED"));
  };

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    gw = await GatewayHarness.start({ queue: coordinator.address });
    token = await gw.organization("acme");
    expect((await call("/createQueue", queue)).status).to.equal(200);
  });
  after(async () => {
    await gw.stop();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("refuses a merged PR whose head has not changed, saying where and when it merged", async () => {
    const head = "a".repeat(40);
    await call("/code-host/pull-request-events", prEvent(7, "opened", head));
    expect((await call("/submitPullRequest", { ...queue, pr: { number: 7 } })).status).to.equal(200);
    await passRunOf(7);

    const again = await call("/submitPullRequest", { ...queue, pr: { number: 7 } });
    expect(again.status).to.equal(409);
    expect(again.text).to.match(/^#7 was merged in [0-9a-f]{40} at \d{4}-\d\d-\d\dT[\d:.]+Z/);
    // Nothing was queued: the PR stays merged and the queue stays empty.
    expect(await state(7)).to.equal("MERGED");
    expect(JSON.parse((await call("/getQueue", queue)).text)).to.deep.include({ enqueuedPullRequests: [] });

    // The code host repeating the same head changes nothing.
    await call("/code-host/pull-request-events", prEvent(7, "reopened", head));
    expect((await call("/submitPullRequest", { ...queue, pr: { number: 7 } })).status).to.equal(409);
  });

  it("accepts the PR again once new commits moved its head", async () => {
    await call("/code-host/pull-request-events", prEvent(7, "synchronize", "b".repeat(40)));
    expect((await call("/submitPullRequest", { ...queue, pr: { number: 7 } })).status).to.equal(200);
    expect(await state(7)).to.not.equal("MERGED");
    await passRunOf(7);
  });

  it("accepts a PR again after a failed or cancelled submission, as before", async () => {
    await call("/code-host/pull-request-events", prEvent(8, "opened", "c".repeat(40)));
    expect((await call("/submitPullRequest", { ...queue, pr: { number: 8 } })).status).to.equal(200);
    expect((await call("/cancelPullRequest", { ...queue, pr: { number: 8 } })).status).to.equal(200);
    expect((await call("/submitPullRequest", { ...queue, pr: { number: 8 } })).status).to.equal(200);
  });
});
