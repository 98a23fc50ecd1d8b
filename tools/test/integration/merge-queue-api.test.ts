import { expect } from "chai";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { repo, targetBranch: "main" };

function prEvent(
  number: number,
  action = "opened",
  extra: { state?: string; sha?: string; branch?: string; merged?: boolean } = {},
) {
  return {
    action,
    number,
    pull_request: {
      title: `Change ${number}`,
      state: extra.state ?? "open",
      merged: extra.merged ?? false,
      user: { login: "dev" },
      head: { ref: extra.branch ?? `feature-${number}`, sha: extra.sha ?? `${number}`.padStart(40, "a") },
      base: { ref: "main" },
    },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      html_url: "https://github.com/acme/widgets",
    },
  };
}

async function eventually<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("merge queue through the HTTP API (gateway -> gRPC -> queue-coordinator)", function () {
  this.timeout(30_000);
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let token: string;
  let otherToken: string;

  const call = async (path: string, body: unknown, t = token) => {
    const response = await gw.post(path, body, t);
    const text = await response.text();
    return {
      status: response.status,
      body: response.headers.get("content-type")?.includes("json")
        ? (JSON.parse(text) as Record<string, unknown>)
        : text,
    };
  };
  const pr = async (number: number) =>
    (await call("/getSubmittedPullRequest", { ...queue, pr: { number } })).body as Record<string, unknown>;
  const getQueue = async () =>
    (await call("/getQueue", queue)).body as { enqueuedPullRequests: Record<string, unknown>[] } & Record<
      string,
      unknown
    >;

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    gw = await GatewayHarness.start({ queue: coordinator.address });
    token = await gw.organization("acme");
    otherToken = await gw.organization("rival");
  });
  after(async () => {
    await gw.stop();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("creates a queue with the compat-notes defaults, once", async () => {
    expect((await call("/createQueue", queue)).status).to.equal(200);
    const again = await call("/createQueue", queue);
    expect(again.status).to.equal(409);
    expect(again.body).to.contain("already exists");
    const q = await getQueue();
    expect(q).to.deep.include({
      state: "RUNNING",
      branch: "main",
      concurrency: 1,
      testingTimeoutMinutes: 300,
      mode: "SINGLE",
      canOptimisticallyMerge: false,
      pendingFailureDepth: 0,
      batch: false,
      batchingMaxWaitTimeMinutes: 5,
      batchingMinSize: 4,
      batchingMode: "FIXED",
      bisectionConcurrency: 1,
      // Ours: a failed batch's halves run alone once the line goes on without it.
      bisectionMode: "ISOLATED",
      mergeMethod: "SQUASH",
      // Issue 26: each follows the repository's quarantining until set.
      ignoreQuarantinedTests: null,
      retryKnownFlakyTests: null,
      holdOnBrokenTarget: null,
    });
    expect(q.enqueuedPullRequests).to.deep.equal([]);
  });

  it("keeps another organisation out: its token sees no such queue", async () => {
    const response = await call("/getQueue", queue, otherToken);
    expect(response.status).to.equal(404);
  });

  it("accepts a PR before its facts are known and keeps it NOT_READY until they arrive", async () => {
    expect((await call("/submitPullRequest", { ...queue, pr: { number: 1 } })).status).to.equal(200);
    const waiting = await pr(1);
    expect(waiting.state).to.equal("NOT_READY");
    expect(waiting.isCurrentlySubmittedToQueue).to.equal(true);
    expect(waiting.priorityName).to.equal("medium");
    expect(waiting.usedDefaultPriorityName).to.equal(true);
    const posted = await call("/code-host/pull-request-events", prEvent(1));
    expect(posted.status, JSON.stringify(posted.body)).to.equal(200);
    const testing = await eventually(
      () => pr(1),
      (p) => p.state === "TESTING",
      "PR 1 testing",
    );
    expect(testing).to.include({ prTitle: "Change 1", prAuthor: "dev", prBaseBranch: "main" });
  });

  it("refuses a second submission of a queued PR", async () => {
    const response = await call("/submitPullRequest", { ...queue, pr: { number: 1 } });
    expect(response.status).to.equal(409);
  });

  it("merges a PR when its external CI reports a pass, and reports the run's details", async () => {
    const q = await getQueue();
    const testRunId = q.enqueuedPullRequests[0]?.testRunId as string;
    expect(testRunId).to.be.a("string");
    // Its batch, under test, and the lane it runs in (the queue page groups PRs by them).
    expect(q.enqueuedPullRequests[0]).to.include({ batchStatus: "TESTING" });
    expect(q.enqueuedPullRequests[0]?.batchId).to.be.a("string");
    expect(q.enqueuedPullRequests[0]?.lane).to.match(/^lane-/);
    const details = await call("/getMergeQueueTestingDetails", { ...queue, testRunId });
    expect(details.status).to.equal(200);
    expect(details.body).to.deep.include({ status: "IN_PROGRESS", dependentPrs: [] });
    expect((details.body as { testedPullRequests: unknown[] }).testedPullRequests).to.deep.equal([
      { prNumber: 1, prUrl: "https://github.com/acme/widgets/pull/1", title: "Change 1" },
    ]);
    expect(
      (await call("/reportTestRun", { testRunId, passed: true }, otherToken)).status,
      "other org",
    ).to.equal(404);
    expect((await call("/reportTestRun", { testRunId, passed: true })).status).to.equal(200);
    const merged = await pr(1);
    expect(merged.state).to.equal("MERGED");
    expect(merged.isCurrentlySubmittedToQueue).to.equal(false);
    expect((await call("/getMergeQueueTestingDetails", { ...queue, testRunId })).body).to.deep.include({
      status: "SUCCEEDED",
    });
    expect((await call("/reportTestRun", { testRunId, passed: false })).status, "a second report").to.equal(
      409,
    );
  });

  it("finds a PR by branch, and answers 404 for a branch never submitted", async () => {
    const byBranch = await call("/getSubmittedPullRequest", { ...queue, pr: { branch: "feature-1" } });
    expect(byBranch.status).to.equal(200);
    expect(byBranch.body).to.include({ prNumber: 1, state: "MERGED" });
    const missing = await call("/getSubmittedPullRequest", { ...queue, pr: { branch: "nope" } });
    expect(missing.status).to.equal(404);
    const never = await call("/getSubmittedPullRequest", { ...queue, pr: { number: 99 } });
    expect(never.status).to.equal(404);
    expect(never.body).to.equal(
      "Pull request with the provided number does not exist or has never been submitted to the specified queue before",
    );
  });

  it("answers concurrent status polls each on its own, as it answers them one at a time", async () => {
    // Polls that arrive together share one gRPC call; each must still get exactly its own answer, and a poll
    // with another organisation's token must not see this organisation's PR through the shared call.
    const polls: [unknown, string?][] = [
      [{ ...queue, pr: { number: 1 } }],
      [{ ...queue, pr: { number: 99 } }],
      [{ ...queue, pr: { branch: "feature-1" } }],
      [{ ...queue, pr: { branch: "nope" } }],
      [{ ...queue, targetBranch: "release", pr: { number: 1 } }],
      [{ ...queue, pr: { number: 1 } }, otherToken],
    ];
    const one = async ([body, t]: [unknown, string?]) => {
      const r = await call("/getSubmittedPullRequest", body, t);
      return { status: r.status, body: r.body };
    };
    const sequential: Awaited<ReturnType<typeof one>>[] = [];
    for (const poll of polls) sequential.push(await one(poll));
    expect(sequential.map((r) => r.status)).to.deep.equal([200, 404, 200, 404, 404, 404]);
    const together = await Promise.all(Array.from({ length: 5 }, () => polls.map(one)).flat());
    expect(together).to.deep.equal(Array.from({ length: 5 }, () => sequential).flat());
  });

  it("fails a PR whose run fails, with the failure reason", async () => {
    await call("/code-host/pull-request-events", prEvent(2));
    await call("/submitPullRequest", { ...queue, pr: { number: 2 }, priority: "high" });
    const q = await eventually(
      getQueue,
      (v) => typeof v.enqueuedPullRequests[0]?.testRunId === "string",
      "PR 2 testing",
    );
    await call("/reportTestRun", { testRunId: q.enqueuedPullRequests[0]?.testRunId, passed: false });
    const failed = await pr(2);
    expect(failed).to.include({ state: "FAILED", priorityName: "high", priorityValue: 10 });
  });

  it("cancels a PR, and cancels it when the code host closes it", async () => {
    await call("/code-host/pull-request-events", prEvent(3));
    await call("/code-host/pull-request-events", prEvent(4));
    await call("/submitPullRequest", { ...queue, pr: { number: 3 } });
    await call("/submitPullRequest", { ...queue, pr: { number: 4 } });
    expect((await call("/cancelPullRequest", { ...queue, pr: { number: 3 } })).status).to.equal(200);
    expect((await pr(3)).state).to.equal("CANCELLED");
    await call("/code-host/pull-request-events", prEvent(4, "closed", { state: "closed" }));
    expect((await pr(4)).state).to.equal("CANCELLED");
    expect(
      (await call("/cancelPullRequest", { ...queue, pr: { number: 3 } })).status,
      "not queued any more",
    ).to.equal(404);
  });

  it("updates settings, refusing bad values without changing anything", async () => {
    const updated = await call("/updateQueue", {
      ...queue,
      concurrency: 3,
      batch: true,
      mergeMethod: "rebase",
    });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect(updated.status).to.equal(200);
    expect(updated.body).to.include({
      concurrency: 3,
      batch: true,
      mergeMethod: "REBASE",
      optimizationMode: "BISECTION_SKIP_REDUNDANT_TESTS",
    });
    expect(updated.body).to.not.have.property("enqueuedPullRequests");
    expect((await call("/updateQueue", { ...queue, batchingMinSize: 0 })).status).to.equal(400);
    const badMode = await call("/updateQueue", { ...queue, batchingMode: "SOMETIMES" });
    expect(badMode.status).to.equal(400);
    expect(badMode.body).to.contain("batchingMode");
    const adaptive = await call("/updateQueue", { ...queue, batchingMode: "adaptive" });
    expect(adaptive.body).to.include({ batchingMode: "ADAPTIVE" });
    expect(await getQueue()).to.include({ batchingMode: "ADAPTIVE" });
    await call("/updateQueue", { ...queue, batchingMode: "FIXED" });
    const badSearch = await call("/updateQueue", { ...queue, bisectionMode: "BINARY" });
    expect(badSearch.status).to.equal(400);
    expect(badSearch.body).to.contain("bisectionMode");
    const stacked = await call("/updateQueue", { ...queue, bisectionMode: "stacked" });
    expect(stacked.body).to.include({ bisectionMode: "STACKED" });
    expect(await getQueue()).to.include({ bisectionMode: "STACKED", batchingMode: "FIXED" });
    expect(await getQueue()).to.include({ batchingMinSize: 4, concurrency: 3 });
    const testAware = await call("/updateQueue", {
      ...queue,
      ignoreQuarantinedTests: false,
      holdOnBrokenTarget: true,
    });
    expect(testAware.body).to.include({
      ignoreQuarantinedTests: false,
      retryKnownFlakyTests: null,
      holdOnBrokenTarget: true,
    });
    const badSwitch = await call("/updateQueue", { ...queue, retryKnownFlakyTests: "yes" });
    expect(badSwitch.status).to.equal(400);
    expect(badSwitch.body).to.contain("retryKnownFlakyTests");
    await call("/updateQueue", { ...queue, holdOnBrokenTarget: null });
    expect(await getQueue()).to.include({
      ignoreQuarantinedTests: false,
      retryKnownFlakyTests: null,
      holdOnBrokenTarget: null,
    });
    const paused = await call("/updateQueue", { ...queue, state: "paused" });
    expect(paused.body).to.include({ state: "PAUSED" });
  });

  it("deletes a queue only when it is empty", async () => {
    await call("/updateQueue", { ...queue, state: "RUNNING", batch: false });
    await call("/code-host/pull-request-events", prEvent(5));
    await call("/submitPullRequest", { ...queue, pr: { number: 5 } });
    const refused = await call("/deleteQueue", queue);
    expect(refused.status).to.equal(409);
    expect(refused.body).to.contain("not empty");
    await call("/cancelPullRequest", { ...queue, pr: { number: 5 } });
    expect((await call("/deleteQueue", queue)).status).to.equal(200);
    expect((await call("/getQueue", queue)).status).to.equal(404);
  });
  it("keeps a repository connection's credentials by Secret name only, and refuses a name that is not one", async () => {
    const connection = {
      repo: { host: "git.example.com", owner: "acme", name: "secrets" },
      remoteUrl: "https://git.example.com/acme/secrets.git",
      credentialsSecretName: "acme-deploy-token",
      runner: { kind: "COMMAND", command: "npm test" },
    };
    expect((await call("/repositories/connection", connection)).status).to.equal(200);
    const stored = await call("/repositories/getConnection", { repo: connection.repo });
    expect(stored.body).to.deep.include({ credentialsSecretName: "acme-deploy-token" });

    for (const name of ["../etc/passwd", "Acme", "a b", "-lead"]) {
      const refused = await call("/repositories/connection", { ...connection, credentialsSecretName: name });
      expect(refused.status, name).to.equal(400);
      expect(refused.body, name).to.match(/^credentialsSecretName: must be a Kubernetes Secret name/);
    }
    // The refused calls changed nothing.
    expect((await call("/repositories/getConnection", { repo: connection.repo })).body).to.deep.equal(
      stored.body,
    );
  });
});
