import { expect } from "chai";
import { MergeJob, MergeOutcome, TestRunOutcome, type TestRunResult } from "@mainline/proto/queue";
import { JOB_CONSUMERS } from "../../src/bus/job-consumers.js";
import { RemoteFixture } from "../git/remote-fixture.js";
import { BatchRunnerFixture, commandRunner, newRunId, QUEUE } from "./batch-runner-fixture.js";

describe("batch-runner: merge jobs", () => {
  let service: BatchRunnerFixture;
  let fx: RemoteFixture;
  let tested: TestRunResult;
  let originalMain: string;

  before(async () => {
    service = await BatchRunnerFixture.start();
  });
  after(() => service.stop());

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    originalMain = (await fx.remoteSha("refs/heads/main"))!;
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
    const runId = newRunId("tested");
    await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }, { number: 2 }], commandRunner("true")),
    );
    tested = await service.testRunResults.first(runId);
    expect(tested.outcome).to.equal(TestRunOutcome.PASSED, tested.message);
  });
  afterEach(() => fx.dispose());

  function mergeJob(mergeId: string, overrides: Partial<MergeJob> = {}): MergeJob {
    return MergeJob.fromPartial({
      mergeId,
      queue: QUEUE,
      remoteUrl: fx.url,
      expectedTargetSha: originalMain,
      pullRequests: tested.commits.map((c) => ({ number: c.prNumber, testedCommitSha: c.commitSha })),
      testedSha: tested.testBranchSha,
      testBranch: tested.testBranch,
      obsoleteTestBranches: [tested.testBranch],
      ...overrides,
    });
  }

  it("fast-forwards the target to the tested commits, reports MERGED and deletes the test branch", async () => {
    const mergeId = newRunId("merge");
    const seq = await service.publishMergeJob(mergeJob(mergeId));

    const result = await service.mergeResults.first(mergeId);
    expect(result.outcome).to.equal(MergeOutcome.MERGED, result.message);
    expect(result.newTargetSha).to.equal(tested.testBranchSha);
    expect(result.queue).to.deep.equal(QUEUE);
    expect(await fx.remoteSha("refs/heads/main")).to.equal(tested.testBranchSha);
    // Each PR landed as its own commit, by fast-forward: one reflog step from the old head.
    expect((await fx.log("main", 3)).map((c) => c.sha)).to.deep.equal([
      tested.commits[1]!.commitSha,
      tested.commits[0]!.commitSha,
      originalMain,
    ]);
    expect((await fx.reflog("main")).at(-1)).to.deep.equal({ from: originalMain, to: tested.testBranchSha });
    // Cleanup runs after the result is published; the result is what the coordinator waits for.
    await service.jobSettled(seq, JOB_CONSUMERS.merge);
    expect(await fx.remoteBranches()).to.deep.equal(["main"]);
  });

  it("reports TARGET_MOVED, without forcing, when the target moved underneath", async () => {
    const moved = await fx.advanceTarget({ "hotfix.txt": "fix\n" }, "Hotfix");
    const mergeId = newRunId("moved");
    await service.publishMergeJob(mergeJob(mergeId));

    const result = await service.mergeResults.first(mergeId);
    expect(result.outcome).to.equal(MergeOutcome.TARGET_MOVED, result.message);
    expect(result.newTargetSha).to.equal(moved);
    expect(await fx.remoteSha("refs/heads/main")).to.equal(moved);
    // Not merged, so the coordinator may still want the branch.
    expect(await fx.remoteBranches()).to.include(tested.testBranch);
  });

  it("reports FAILED for a tested commit the remote has never seen", async () => {
    const mergeId = newRunId("unknown");
    await service.publishMergeJob(
      mergeJob(mergeId, { testedSha: "0".repeat(40), testBranch: "", obsoleteTestBranches: [] }),
    );

    const result = await service.mergeResults.first(mergeId);
    expect(result.outcome).to.equal(MergeOutcome.FAILED);
    expect(result.message).to.contain("0".repeat(40));
    expect(await fx.remoteSha("refs/heads/main")).to.equal(originalMain);
  });
});
