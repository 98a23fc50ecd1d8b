import { expect } from "chai";
import { eventually, git } from "@mainline/testing";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { QueueSystem } from "@mainline/harness/queue-system";
import { LocalRemote } from "../../src/demo/local-remote.js";

const repo = { host: "git.example.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };

/**
 * Issue 17: the batch-runner no longer holds an external CI's run open, yet cancelling the run still takes its
 * pushed branch away (a CI stops when its branch goes), and a report after the cancellation changes nothing.
 * The coordinator, the batch-runner and nats-server, a real bare remote.
 */
describe("a cancelled EXTERNAL run loses its test branch (coordinator + batch-runner + real git)", function () {
  this.timeout(120_000);
  let dir: string;
  let remote: string;
  let system: QueueSystem;

  const call = async (route: string, body: unknown, status = 200) => {
    const response = await system.gw.post(route, body, system.token);
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).to.equal(status);
    return status === 200 && text !== "" ? (JSON.parse(text) as Record<string, unknown>) : { body: text };
  };
  const testBranches = () =>
    git(remote, "for-each-ref", "--format=%(refname:short)", "refs/heads/mainline/test/")
      .split("\n")
      .filter((line) => line !== "");

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-external-cancel-"));
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
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("deletes the pushed branch when the PR is cancelled, and refuses the CI's late report", async () => {
    await call("/createQueue", { ...queue, concurrency: 1 });
    await call("/repositories/connection", { repo, remoteUrl: remote, runner: { kind: "EXTERNAL" } });
    await system.pullRequestOpened(repo, 1, git(remote, "rev-parse", "refs/pull/1/head"));
    await call("/submitPullRequest", { ...queue, pr: { number: 1 } });

    // The CI sees the branch and the coordinator has its commit: what the CI would build.
    const branch = await eventually(() => {
      const [pushed] = testBranches();
      expect(pushed).to.be.a("string");
      return pushed!;
    }, 60_000);
    const testRunId = branch.split("/").pop()!;
    const sha = git(remote, "rev-parse", `refs/heads/${branch}`);
    await eventually(async () => {
      const details = await call("/getMergeQueueTestingDetails", { ...queue, testRunId });
      expect(details).to.include({ status: "IN_PROGRESS", testBranchSha: sha });
    }, 10_000);

    await call("/cancelPullRequest", { ...queue, pr: { number: 1 } });
    await eventually(() => expect(testBranches()).to.deep.equal([]), 15_000);
    const details = await call("/getMergeQueueTestingDetails", { ...queue, testRunId });
    expect(details.status).to.equal("CANCELLED");
    const late = await call("/reportTestRun", { testRunId, passed: true }, 409);
    expect(late.body).to.equal(`test run ${testRunId} is already cancelled`);
  });
});
