import { expect } from "chai";
import { branchMoves, git } from "@mainline/testing";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { QueueSystem } from "@mainline/harness/queue-system";
import { LocalRemote, type FileChanges } from "../../src/demo/local-remote.js";

const repo = { host: "git.example.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };
const BROKEN = 3;
const CONFLICTING = 6;

/**
 * Issue 5's end-to-end run: the coordinator, the batch-runner and nats-server, a real bare remote with eight
 * pull requests (one breaks the test command, one conflicts), batching on with size 4.
 */
describe("merge queue end to end with real git (coordinator + batch-runner + nats-server)", function () {
  this.timeout(240_000);
  let dir: string;
  let remote: string;
  let baseSha: string;
  let system: QueueSystem;

  const call = (route: string, body: unknown) => system.call(route, body);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-e2e-"));
    // LocalRemote logs every ref update of the remote, so the test can prove there was no force-push.
    const local = await LocalRemote.create(dir, {
      "app.txt": "line one\nline two\n",
      "test.sh": 'if [ -e BROKEN ]; then echo "tests fail: BROKEN exists"; exit 1; fi\necho ok\n',
    });
    for (let n = 1; n <= 8; n++) {
      const change: FileChanges =
        n === BROKEN
          ? { BROKEN: "this breaks the tests\n" }
          : n === 2 || n === CONFLICTING
            ? { "app.txt": `line one changed by ${n}\nline two\n` }
            : { [`pr-${n}.txt`]: `change ${n}\n` };
      await local.pushPullRequest(n, `feature-${n}`, `Change ${n}`, change);
    }
    remote = local.remoteDir;
    baseSha = local.baseSha;

    system = await QueueSystem.start({
      workDir: path.join(dir, "runner"),
      jobConcurrency: 2,
      maxRunSeconds: 120,
    });
  });

  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("merges the six good PRs as separate commits in queue order and fails the broken and the conflicting one", async () => {
    await call("/createQueue", {
      ...queue,
      concurrency: 2,
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 1,
    });
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh" },
    });
    for (let n = 1; n <= 8; n++) {
      const sha = git(remote, "rev-parse", `refs/pull/${n}/head`);
      await call("/code-host/pull-request-events", {
        action: "opened",
        number: n,
        pull_request: {
          title: `Change ${n}`,
          state: "open",
          user: { login: "dev" },
          head: { ref: `feature-${n}`, sha },
          base: { ref: "main" },
        },
        repository: {
          name: repo.name,
          owner: { login: repo.owner },
          html_url: `https://${repo.host}/acme/app`,
        },
      });
    }
    for (let n = 1; n <= 8; n++) await call("/submitPullRequest", { ...queue, pr: { number: n } });

    const states = new Map<number, Record<string, unknown>>();
    const deadline = Date.now() + 150_000;
    while (states.size < 8) {
      for (let n = 1; n <= 8; n++) {
        const pr = await call("/getSubmittedPullRequest", { ...queue, pr: { number: n } });
        if (["MERGED", "FAILED", "CANCELLED"].includes(pr.state as string)) states.set(n, pr);
      }
      if (Date.now() > deadline)
        throw new Error(`not every PR finished: ${JSON.stringify([...states.entries()])}`);
      await new Promise((r) => setTimeout(r, 250));
    }

    const stateOf = (n: number) => states.get(n)?.state;
    expect([1, 2, 4, 5, 7, 8].map(stateOf)).to.deep.equal(Array(6).fill("MERGED"));
    expect(stateOf(BROKEN)).to.equal("FAILED");
    expect(stateOf(CONFLICTING)).to.equal("FAILED");

    // The remote's main: the base, then one commit per merged PR. The PRs behind the failed batch land in queue
    // order; the good PRs of the batch that held the broken one land once their bisection clears them, which may
    // be after PRs that were behind them and already testing (a failed batch steps out of the line).
    const log = git(remote, "log", "--format=%s", `${baseSha}..main`).split("\n").reverse();
    expect([...log].sort()).to.deep.equal([1, 2, 4, 5, 7, 8].map((n) => `Change ${n} (#${n})`).sort());
    expect(log.filter((s) => /#[578]\)$/.test(s))).to.deep.equal([5, 7, 8].map((n) => `Change ${n} (#${n})`));
    const parents = git(remote, "rev-list", "--parents", `${baseSha}..main`).split("\n");
    expect(
      parents.every((line) => line.split(" ").length === 2),
      "each PR a single-parent commit",
    ).to.equal(true);

    // No force-push: every update of main moved it forward from the previous value. The good PRs of the failed
    // batch and those behind it land in separate merges, at most one merge per PR.
    const { moves, forced } = branchMoves(remote, "refs/heads/main");
    expect(forced).to.deep.equal([]);
    expect(moves).to.be.within(2, 6);
  });

  it("says why each failed PR failed", async () => {
    const broken = await call("/getSubmittedPullRequest", { ...queue, pr: { number: BROKEN } });
    const conflicting = await call("/getSubmittedPullRequest", { ...queue, pr: { number: CONFLICTING } });
    const q = await call("/getQueue", queue);
    expect(q.enqueuedPullRequests).to.deep.equal([]);
    expect(broken).to.include({ state: "FAILED", failureReason: "TESTS_FAILED" });
    expect(conflicting).to.include({ state: "FAILED", failureReason: "MERGE_CONFLICT" });
  });

  it("ends a run whose branch could not be built as BUILD_FAILED, not as failed tests", async () => {
    // PR 9's head was never pushed: git cannot fetch refs/pull/9/head, so no test can run.
    const number = 9;
    await call("/code-host/pull-request-events", {
      action: "opened",
      number,
      pull_request: {
        title: `Change ${number}`,
        state: "open",
        user: { login: "dev" },
        head: { ref: `feature-${number}`, sha: "9".repeat(40) },
        base: { ref: "main" },
      },
      repository: {
        name: repo.name,
        owner: { login: repo.owner },
        html_url: `https://${repo.host}/acme/app`,
      },
    });
    await call("/submitPullRequest", { ...queue, pr: { number }, noBatch: true });
    const deadline = Date.now() + 60_000;
    let pr = await call("/getSubmittedPullRequest", { ...queue, pr: { number } });
    while (pr.state !== "FAILED" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      pr = await call("/getSubmittedPullRequest", { ...queue, pr: { number } });
    }
    expect(pr).to.include({ state: "FAILED", failureReason: "BUILD_FAILED" });
  });
});
