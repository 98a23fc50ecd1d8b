import { expect } from "chai";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { repo, targetBranch: "main" };

function prEvent(number: number, author: string, branch: string) {
  return {
    action: "opened",
    number,
    pull_request: {
      title: `Change ${number}`,
      state: "open",
      merged: false,
      user: { login: author },
      head: { ref: branch, sha: `${number}`.padStart(40, "a") },
      base: { ref: "main" },
    },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      html_url: "https://github.com/acme/widgets",
    },
  };
}

interface FinishedPage {
  pullRequests: { prNumber: number; state: string; reason: string; headBranch: string; endedAt: string }[];
  total: number;
  limit: number;
  offset: number;
}

/** Ten PRs more than a default page, cancelled, so that paging has three pages of ten. */
const CANCELLED = Array.from({ length: 22 }, (_, i) => 10 + i);

describe("a queue's history through the HTTP API (gateway -> gRPC -> queue-coordinator)", function () {
  this.timeout(60_000);
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let token: string;
  let rival: string;

  const call = async (path: string, body: unknown, t = token) => {
    const response = await gw.post(path, body, t);
    const text = await response.text();
    return { status: response.status, text, json: (text.startsWith("{") ? JSON.parse(text) : {}) as unknown };
  };
  const history = async (body: object = {}, t = token): Promise<FinishedPage> => {
    const answer = await call("/listFinishedPullRequests", { ...queue, ...body }, t);
    expect(answer.status, answer.text).to.equal(200);
    return answer.json as FinishedPage;
  };
  const numbers = (page: FinishedPage) => page.pullRequests.map((p) => p.prNumber);
  const testRunOf = async (number: number): Promise<string> => {
    for (let i = 0; i < 200; i++) {
      const q = (await call("/getQueue", queue)).json as {
        enqueuedPullRequests: { prNumber: number; testRunId?: string }[];
      };
      const id = q.enqueuedPullRequests.find((p) => p.prNumber === number)?.testRunId;
      if (id) return id;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`PR ${number} never started testing`);
  };

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    gw = await GatewayHarness.start({ queue: coordinator.address });
    token = await gw.organization("acme");
    rival = await gw.organization("rival");
    expect((await call("/createQueue", queue)).status).to.equal(200);
    // PR 1 merges, PR 2 fails, then many are cancelled: what `make demo` leaves behind, and more.
    await call("/code-host/pull-request-events", prEvent(1, "dev", "feature-1"));
    await call("/submitPullRequest", { ...queue, pr: { number: 1 } });
    expect((await call("/reportTestRun", { testRunId: await testRunOf(1), passed: true })).status).to.equal(
      200,
    );
    await call("/code-host/pull-request-events", prEvent(2, "ada", "fix-login"));
    await call("/submitPullRequest", { ...queue, pr: { number: 2 } });
    expect((await call("/reportTestRun", { testRunId: await testRunOf(2), passed: false })).status).to.equal(
      200,
    );
    for (const n of CANCELLED) {
      await call("/code-host/pull-request-events", prEvent(n, "dev", `feature-${n}`));
      await call("/submitPullRequest", { ...queue, pr: { number: n } });
      expect((await call("/cancelPullRequest", { ...queue, pr: { number: n } })).status).to.equal(200);
    }
  });
  after(async () => {
    await gw.stop();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("lists the merged, failed and cancelled PRs, the latest first, with why each ended", async () => {
    const page = await history({ limit: 100 });
    expect(page.total).to.equal(2 + CANCELLED.length);
    expect(numbers(page).sort((a, b) => a - b)).to.deep.equal([1, 2, ...CANCELLED]);
    const ended = page.pullRequests.map((p) => Date.parse(p.endedAt));
    expect(ended).to.deep.equal([...ended].sort((a, b) => b - a));
    expect(page.pullRequests.at(-1)).to.deep.include({
      prNumber: 1,
      state: "MERGED",
      headBranch: "feature-1",
    });
    expect(page.pullRequests.at(-2)).to.deep.include({
      prNumber: 2,
      state: "FAILED",
      reason: "TESTS_FAILED",
    });
    expect(page.pullRequests[0]).to.deep.include({ state: "CANCELLED" });
  });

  it("filters by end state", async () => {
    const failed = await history({ states: ["failed"] });
    expect(numbers(failed)).to.deep.equal([2]);
    expect(failed.total).to.equal(1);
    const endedWell = await history({ states: ["MERGED", "FAILED"] });
    expect(numbers(endedWell)).to.deep.equal([2, 1]);
    expect((await history({ states: ["CANCELLED"] })).total).to.equal(CANCELLED.length);
  });

  it("finds a PR by number, head branch or author", async () => {
    expect(numbers(await history({ search: "2" }))).to.deep.equal([2]);
    expect(numbers(await history({ search: "#1" }))).to.deep.equal([1]);
    expect(numbers(await history({ search: "fix-login" }))).to.deep.equal([2]);
    expect(numbers(await history({ search: " ada " }))).to.deep.equal([2]);
    expect(numbers(await history({ search: "feature-12" }))).to.deep.equal([12]);
    expect(await history({ search: "nobody" })).to.deep.include({ total: 0, pullRequests: [] });
    expect(numbers(await history({ search: "dev", states: ["MERGED"] }))).to.deep.equal([1]);
  });

  it("pages through the history without overlap", async () => {
    const first = await history();
    expect(first).to.include({ limit: 20, offset: 0, total: 24 });
    const pages = [0, 10, 20].map((offset) => history({ limit: 10, offset }));
    const seen = (await Promise.all(pages)).map(numbers);
    expect(seen.map((p) => p.length)).to.deep.equal([10, 10, 4]);
    expect(seen.flat().sort((a, b) => a - b)).to.deep.equal([1, 2, ...CANCELLED]);
    expect((await history({ offset: 24 })).pullRequests).to.deep.equal([]);
  });

  it("refuses unbounded or malformed input with a 400 naming the field", async () => {
    const cases: [object, string][] = [
      [{ limit: 0 }, "limit"],
      [{ limit: 101 }, "limit"],
      [{ limit: 9007199254740991 }, "limit"],
      [{ offset: -1 }, "offset"],
      [{ offset: 10_001 }, "offset"],
      [{ search: "x".repeat(256) }, "search"],
      [{ search: 42 }, "search"],
      [{ states: ["PENDING"] }, "states"],
      [{ states: ["MERGED", "FAILED", "CANCELLED", "MERGED"] }, "states"],
      [{ page: 2 }, "page"],
      [{ targetBranch: "" }, "targetBranch"],
    ];
    for (const [body, field] of cases) {
      const answer = await call("/listFinishedPullRequests", { ...queue, ...body });
      expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).to.equal(400);
      expect(answer.text, JSON.stringify(body)).to.contain(field);
    }
  });

  it("shows another organisation nothing: no such queue, and its own queue of the same name is empty", async () => {
    const refused = await call("/listFinishedPullRequests", queue, rival);
    expect(refused.status, refused.text).to.equal(404);
    expect((await call("/createQueue", queue, rival)).status).to.equal(200);
    expect(await history({ search: "1" }, rival)).to.deep.include({ total: 0, pullRequests: [] });
    expect(await history({}, rival)).to.deep.include({ total: 0, pullRequests: [] });
    const missing = await call("/listFinishedPullRequests", { ...queue, targetBranch: "release" });
    expect(missing.status, missing.text).to.equal(404);
  });
});
