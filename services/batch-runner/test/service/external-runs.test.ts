import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "chai";
import { RemoteFixture } from "../git/remote-fixture.js";
import { JOB_CONSUMERS } from "../../src/bus/job-consumers.js";
import { BatchRunnerFixture, externalRunner, newRunId } from "./batch-runner-fixture.js";

/**
 * A run an external CI tests: the batch-runner builds and pushes the test branch, tells the coordinator the
 * commits, and is done; the CI reports to the coordinator. Cancelled runs lose their branch.
 */
describe("batch-runner: external runs", () => {
  let service: BatchRunnerFixture;
  let fx: RemoteFixture;

  before(async () => {
    service = await BatchRunnerFixture.start();
  });
  after(() => service.stop());

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
  });
  afterEach(() => fx.dispose());

  it("pushes the test branch, announces each PR's commit and frees the slot without waiting or a result", async () => {
    const runId = newRunId("ext-push");
    const seq = await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }, { number: 2 }], externalRunner),
    );

    const pushed = await service.pushes.first(runId);
    await service.jobSettled(seq);
    const branch = `mainline/test/main/${runId}`;
    expect(pushed.testBranch).to.equal(branch);
    expect(pushed.testBranchSha).to.equal(await fx.remoteSha(`refs/heads/${branch}`));
    // Two commits in application order, the last one the branch's tip: what a merge lands.
    expect(pushed.commits.map((c) => c.prNumber)).to.deep.equal([1, 2]);
    expect(pushed.commits[1]!.commitSha).to.equal(pushed.testBranchSha);
    expect(pushed.commits[0]!.commitSha).to.not.equal(pushed.testBranchSha);
    await sleep(200);
    expect(service.testRunResults.all(runId), "the CI reports to the coordinator, not here").to.deep.equal(
      [],
    );
  });

  it("deletes the pushed branch of a cancelled run when the coordinator asks; a repeat finds nothing to do", async () => {
    const runId = newRunId("ext-cleanup");
    const seq = await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], externalRunner),
    );
    await service.pushes.first(runId);
    await service.jobSettled(seq);
    expect(await fx.remoteBranches()).to.include(`mainline/test/main/${runId}`);

    const cleanup = await service.publishTestBranchCleanup(fx, runId);
    await service.jobSettled(cleanup, JOB_CONSUMERS.testBranchCleanup);
    expect(await fx.remoteBranches()).not.to.include(`mainline/test/main/${runId}`);
    const again = await service.publishTestBranchCleanup(fx, `${runId}-again`);
    await service.jobSettled(again, JOB_CONSUMERS.testBranchCleanup);
  });

  it("skips a job whose run was cancelled before any replica took it", async () => {
    const runId = newRunId("ext-cancel-early");
    await service.publishCancellation(runId);
    const seq = await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], externalRunner),
    );

    await service.jobSettled(seq);
    expect(await fx.remoteBranches()).not.to.include(`mainline/test/main/${runId}`);
    expect(service.testRunResults.all(runId)).to.deep.equal([]);
    expect(service.pushes.all(runId)).to.deep.equal([]);
  });
});
