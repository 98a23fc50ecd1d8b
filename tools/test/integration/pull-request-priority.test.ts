import { expect } from "chai";
import { NatsServer } from "@mainline/testing";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "priorities" };
const queue = { repo, targetBranch: "main" };

function prEvent(number: number) {
  return {
    action: "opened",
    number,
    pull_request: {
      title: `Change ${number}`,
      state: "open",
      merged: false,
      user: { login: "dev" },
      head: { ref: `feature-${number}`, sha: `${number}`.padStart(40, "b") },
      base: { ref: "main" },
    },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      html_url: "https://github.com/acme/priorities",
    },
  };
}

type Json = Record<string, unknown>;
type QueueJson = {
  enqueuedPullRequests: { prNumber: number; state: string; testRunId?: string; estimatedMergeAt?: string }[];
};

describe("changing a PR's priority and estimating merge times through the HTTP API (real coordinator)", function () {
  this.timeout(60_000);
  let nats: NatsServer;
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let token: string;
  let otherToken: string;

  const call = async (path: string, body: unknown, t = token, on = gw) => {
    const response = await on.post(path, body, t);
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes("json");
    return { status: response.status, body: (json ? JSON.parse(text) : text) as Json & string };
  };
  const order = async () =>
    ((await call("/getQueue", queue)).body as unknown as QueueJson).enqueuedPullRequests.map(
      (p) => p.prNumber,
    );
  const pr = async (number: number, on = gw) =>
    (await call("/getSubmittedPullRequest", { ...queue, pr: { number } }, token, on)).body as Json;

  before(async () => {
    nats = await NatsServer.start();
    coordinator = await CoordinatorHarness.start({ nats });
    gw = await GatewayHarness.start({ queue: coordinator.address }, { nats });
    token = await gw.organization("acme");
    otherToken = await gw.organization("rival");
    expect((await call("/createQueue", queue)).status).to.equal(200);
    for (const n of [1, 2, 3]) {
      await call("/code-host/pull-request-events", prEvent(n));
      expect((await call("/submitPullRequest", { ...queue, pr: { number: n } })).status).to.equal(200);
    }
  });
  after(async () => {
    await gw?.stop();
    await coordinator?.stop();
    await nats?.stop();
  });

  it("moves a waiting PR ahead of the PRs it now outranks, and the timeline says who changed what", async () => {
    expect(await order()).to.deep.equal([1, 2, 3]);
    const changed = await call("/setPullRequestPriority", { ...queue, pr: { number: 3 }, priority: "HIGH" });
    expect(changed.status, changed.body).to.equal(200);
    expect(changed.body).to.deep.equal({ priorityValue: 10, priorityName: "high" });
    expect(await order()).to.deep.equal([1, 3, 2]);
    const three = await pr(3);
    expect(three).to.include({ priorityValue: 10, priorityName: "high", usedDefaultPriorityName: false });
    expect(three.priorityChanges).to.have.length(1);
    expect((three.priorityChanges as Json[])[0]).to.include({ from: 100, to: 10 });
    expect((three.priorityChanges as Json[])[0]?.by).to.match(/^token:/);
  });

  it("a PR under test keeps its place and its run", async () => {
    const before = (await call("/getQueue", queue)).body as unknown as QueueJson;
    const running = before.enqueuedPullRequests[0];
    expect(running).to.include({ prNumber: 1, state: "TESTING" });
    expect(
      (await call("/setPullRequestPriority", { ...queue, pr: { number: 1 }, priority: 200 })).status,
    ).to.equal(200);
    const after = (await call("/getQueue", queue)).body as unknown as QueueJson;
    expect(after.enqueuedPullRequests[0]).to.include({
      prNumber: 1,
      state: "TESTING",
      testRunId: running?.testRunId,
    });
    expect((await pr(1)).priorityValue).to.equal(200);
  });

  it("refuses bad input naming the field, an unknown PR, and another organisation's queue", async () => {
    const bad = [
      [{ ...queue, pr: { number: 2 }, priority: "soon" }, /priority/],
      [{ ...queue, pr: { number: 2 }, priority: 256 }, /priority/],
      [{ ...queue, pr: { number: 2 } }, /priority/],
      [{ ...queue, pr: { number: 0 }, priority: "low" }, /pr\.number/],
      [{ ...queue, targetBranch: "x".repeat(300), pr: { number: 2 }, priority: "low" }, /targetBranch/],
    ] as const;
    for (const [body, field] of bad) {
      const response = await call("/setPullRequestPriority", body);
      expect(response.status, JSON.stringify(body)).to.equal(400);
      expect(response.body).to.match(field);
    }
    const unknown = await call("/setPullRequestPriority", { ...queue, pr: { number: 99 }, priority: "low" });
    expect(unknown.status).to.equal(404);
    const rival = await call(
      "/setPullRequestPriority",
      { ...queue, pr: { number: 2 }, priority: "low" },
      otherToken,
    );
    expect(rival.status).to.equal(404);
    expect(await order()).to.deep.equal([1, 3, 2]);
  });

  it("tells an open page of the queue, within a second, that a priority changed and that the queue was paused", async () => {
    const session = await fetch(`${gw.origin}/ui/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    const cookie = session.headers.getSetCookie()[0]!.split(";")[0]!;
    const controller = new AbortController();
    const notices: { data: Json; at: number }[] = [];
    const stream = await fetch(
      `${gw.origin}/ui/events?repo=${repo.host}/${repo.owner}/${repo.name}&branch=main`,
      {
        headers: { cookie },
        signal: controller.signal,
      },
    );
    expect(stream.status).to.equal(200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          for (const line of value.split("\n"))
            if (line.startsWith("data: "))
              notices.push({ data: JSON.parse(line.slice(6)) as Json, at: Date.now() });
        }
      } catch {
        // aborted
      }
    })();
    const heard = async (match: (n: Json) => boolean, since: number) => {
      for (let i = 0; i < 100; i++) {
        const found = notices.find((n) => n.at >= since && match(n.data));
        if (found) return found.at - since;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no matching notice; heard ${JSON.stringify(notices.map((n) => n.data))}`);
    };
    try {
      let since = Date.now();
      await call("/setPullRequestPriority", { ...queue, pr: { number: 2 }, priority: "low" });
      expect(await heard((n) => n.kind === "pull-request" && n.pr === 2, since)).to.be.below(1_000);
      since = Date.now();
      expect((await call("/updateQueue", { ...queue, state: "PAUSED" })).status).to.equal(200);
      expect(await heard((n) => n.kind === "queue", since)).to.be.below(1_000);
      await call("/updateQueue", { ...queue, state: "RUNNING" });
    } finally {
      controller.abort();
    }
  });

  it("estimates from the stored run durations: a second gateway replica gives the same figure", async () => {
    const first = ((await call("/getQueue", queue)).body as unknown as QueueJson).enqueuedPullRequests[0];
    await new Promise((r) => setTimeout(r, 300));
    expect((await call("/reportTestRun", { testRunId: first?.testRunId, passed: true })).status).to.equal(
      200,
    );
    const withTime = async (on: GatewayHarness) => {
      for (let i = 0; i < 100; i++) {
        const p = await pr(2, on);
        if (p.medianRunSeconds !== undefined) return p;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("no estimate appeared");
    };
    const here = await withTime(gw);
    expect(here.medianRunSeconds).to.be.greaterThanOrEqual(0.3);
    // A replica started after the run finished heard no event of it, yet knows the same duration.
    const replica = await GatewayHarness.start({ queue: coordinator.address }, { nats });
    try {
      // Same NATS, same gateway store: the replica knows the token, as replicas behind one load balancer do.
      const there = (await call("/getSubmittedPullRequest", { ...queue, pr: { number: 2 } }, token, replica))
        .body as Json;
      expect(there.medianRunSeconds).to.equal(here.medianRunSeconds);
      expect(there.queuePosition).to.equal(here.queuePosition);
      // getQueue (the queue page) gives every PR that counts its estimate, from the same figures.
      const listed = (await call("/getQueue", queue, token, replica)).body as unknown as QueueJson & {
        medianRunSeconds: number;
      };
      expect(listed.medianRunSeconds).to.equal(here.medianRunSeconds);
      expect(listed.enqueuedPullRequests.every((p) => typeof p.estimatedMergeAt === "string")).to.equal(true);
    } finally {
      await replica.stop();
    }
  });
});
