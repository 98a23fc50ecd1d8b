import { expect } from "chai";
import { eventually, git } from "@mainline/testing";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { QueueSystem } from "@mainline/harness/queue-system";
import { LocalRemote } from "../../src/demo/local-remote.js";

const repo = { host: "git.example.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Issue 15 item 2: a run the planner cancels stops at once. The coordinator, the batch-runner and
 * nats-server, a real bare remote, and a test command that would sleep for ten minutes.
 */
describe("a cancelled test run stops at once (coordinator + batch-runner + real git)", function () {
  this.timeout(120_000);
  let dir: string;
  let remote: string;
  let pidsFile: string;
  let system: QueueSystem;

  const call = (route: string, body: unknown) => system.call(route, body);
  const pids = async () =>
    (await readFile(pidsFile, "utf8").catch(() => ""))
      .split("\n")
      .filter((line) => line !== "")
      .map(Number);
  const testBranches = () =>
    git(remote, "for-each-ref", "--format=%(refname:short)", "refs/heads/mainline/test/")
      .split("\n")
      .filter((line) => line !== "");

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cancel-"));
    pidsFile = path.join(dir, "pids");
    const local = await LocalRemote.create(dir, { "app.txt": "one\n" });
    await local.pushPullRequest(1, "feature-1", "Change 1", { "app.txt": "one\ntwo\n" });
    remote = local.remoteDir;

    system = await QueueSystem.start({
      workDir: path.join(dir, "runner"),
      jobConcurrency: 1,
      maxRunSeconds: 900,
    });
  });

  after(async () => {
    // Whatever the test saw, no sleep outlives it (a live one would also hold runner.stop()).
    for (const pid of await pids().catch(() => [])) if (isAlive(pid)) process.kill(-pid, "SIGKILL");
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("lists the run in flight with its pushed commit; restarting the PR kills the command, deletes the branch and starts the next run", async () => {
    await call("/createQueue", { ...queue, concurrency: 1 });
    // One slot only: the next run can start only once the cancelled one has freed it.
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: `echo $$ >> ${pidsFile} && exec sleep 600` },
    });
    await system.pullRequestOpened(repo, 1, git(remote, "rev-parse", "refs/pull/1/head"));
    await call("/submitPullRequest", { ...queue, pr: { number: 1 } });

    const [first] = await eventually(async () => {
      const started = await pids();
      expect(started).to.have.length(1);
      return started;
    }, 60_000);
    const [firstBranch] = testBranches();
    expect(firstBranch).to.be.a("string");
    const firstRunId = firstBranch!.split("/").pop()!;

    // Issue 15 item 11: while the run is in progress, an external CI can read the pushed commit and the run.
    const pushedSha = git(remote, "rev-parse", `refs/heads/${firstBranch}`);
    // The push is reported on the bus while the command starts: the coordinator records it a moment later.
    await eventually(async () => {
      const inProgress = await call("/getMergeQueueTestingDetails", { ...queue, testRunId: firstRunId });
      expect(inProgress).to.include({
        status: "IN_PROGRESS",
        testBranch: firstBranch,
        testBranchSha: pushedSha,
      });
      const { testRunsInFlight } = await call("/getQueue", queue);
      expect(testRunsInFlight).to.deep.equal([
        {
          id: firstRunId,
          kind: "main",
          prNumbers: [1],
          testBranch: firstBranch,
          testBranchSha: pushedSha,
          startedAt: (testRunsInFlight as { startedAt: string }[])[0]?.startedAt,
        },
      ]);
    }, 5_000);

    const restartedAt = Date.now();
    await call("/restartTestsOnPullRequest", { ...queue, pr: { number: 1 } });

    const second = await eventually(async () => {
      expect(isAlive(first!), "the first run's sleep").to.equal(false);
      expect(testBranches()).not.to.include(firstBranch);
      const started = await pids();
      expect(started, "the next run's command").to.have.length(2);
      return started[1]!;
    }, 15_000);
    expect(Date.now() - restartedAt, "ms from restart to the next run").to.be.below(15_000);
    expect(isAlive(second)).to.equal(true);
    const details = await call("/getMergeQueueTestingDetails", { ...queue, testRunId: firstRunId });
    expect(details.status).to.equal("CANCELLED");

    // Cancelling the PR stops the second run the same way.
    await call("/cancelPullRequest", { ...queue, pr: { number: 1 } });
    await eventually(() => {
      expect(isAlive(second), "the second run's sleep").to.equal(false);
      expect(testBranches()).to.deep.equal([]);
    }, 15_000);
  });
});
