import { expect } from "chai";
import { branchMoves, rejection } from "@mainline/testing";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { TargetMovedError } from "../../src/git/git-errors.js";
import { fastForwardTarget, type MergeJob } from "../../src/git/merge.js";
import { buildProjectedBranch, type ProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { deleteTestBranches } from "../../src/git/test-branch-cleanup.js";
import { RemoteFixture } from "./remote-fixture.js";

describe("fastForwardTarget", () => {
  let fx: RemoteFixture;
  let originalMain: string;
  let projected: ProjectedBranch;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    originalMain = (await fx.remoteSha("refs/heads/main"))!;
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
    await fx.openPullRequest(3, [{ files: { "three.txt": "3\n" }, message: "Three" }]);
    projected = await buildProjectedBranch(fx.cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: "run-7",
      mergeMethod: "SQUASH",
      pullRequests: [
        { number: 1, title: "One" },
        { number: 2, title: "Two" },
        { number: 3, title: "Three" },
      ],
    });
  });

  afterEach(() => fx.dispose());

  function mergeJob(overrides: Partial<MergeJob> = {}): MergeJob {
    return {
      remoteUrl: fx.url,
      targetBranch: "main",
      mergeId: "merge-1",
      commitSha: projected.testBranchSha,
      testBranch: projected.testBranch,
      ...overrides,
    };
  }

  it("fast-forwards the target so each PR lands as its own tested commit, without force", async () => {
    const result = await fastForwardTarget(fx.cache, mergeJob());

    expect(result).to.deep.equal({
      mergeId: "merge-1",
      targetBranch: "main",
      previousSha: originalMain,
      mergedSha: projected.testBranchSha,
      alreadyMerged: false,
    });
    const log = await fx.log("main", 4);
    expect(log.map((c) => c.sha)).to.deep.equal([
      projected.commitsByPr[3],
      projected.commitsByPr[2],
      projected.commitsByPr[1],
      originalMain,
    ]);
    const updates = (await fx.reflog("main")).filter((u) => !/^0+$/.test(u.from));
    expect(updates.at(-1)).to.deep.equal({ from: originalMain, to: projected.testBranchSha });
    expect(branchMoves(fx.remote.cwd, "refs/heads/main")).to.deep.equal({ moves: 1, forced: [] });
  });

  it("lands only the PRs being merged when the merge stops at an earlier PR's commit", async () => {
    await fastForwardTarget(fx.cache, mergeJob({ commitSha: projected.commitsByPr[2]! }));
    expect(await fx.remoteSha("refs/heads/main")).to.equal(projected.commitsByPr[2]);
  });

  it("reports a redelivered merge as already merged without pushing", async () => {
    await fastForwardTarget(fx.cache, mergeJob());
    const reflogBefore = await fx.reflog("main");

    const again = await fastForwardTarget(fx.cache, mergeJob());

    expect(again.alreadyMerged).to.be.true;
    expect(again.mergedSha).to.equal(projected.testBranchSha);
    expect(await fx.reflog("main")).to.deep.equal(reflogBefore);
  });

  it("finishes a merge a crashed delivery had moved part of the way", async () => {
    await fastForwardTarget(fx.cache, mergeJob({ commitSha: projected.commitsByPr[1]! }));
    const result = await fastForwardTarget(fx.cache, mergeJob());
    expect(result.alreadyMerged).to.be.false;
    expect(result.previousSha).to.equal(projected.commitsByPr[1]);
    expect(await fx.remoteSha("refs/heads/main")).to.equal(projected.testBranchSha);
  });

  it("raises TargetMovedError when the target moved outside the tested history", async () => {
    const moved = await fx.advanceTarget({ "hotfix.txt": "fix\n" }, "Hotfix");

    const error = await rejection(fastForwardTarget(fx.cache, mergeJob()));

    expect(error).to.be.instanceOf(TargetMovedError);
    expect(error).to.include({
      retryable: false,
      targetBranch: "main",
      currentSha: moved,
      testedSha: projected.testBranchSha,
    });
    expect(await fx.remoteSha("refs/heads/main")).to.equal(moved);
  });

  it("merges from another replica that never built the test branch", async () => {
    const otherReplica = new RepositoryCache({ workDir: `${fx.root}/other-replica` });
    const result = await fastForwardTarget(otherReplica, mergeJob());
    expect(result.mergedSha).to.equal(projected.testBranchSha);
    expect(await fx.remoteSha("refs/heads/main")).to.equal(projected.testBranchSha);
  });

  it("lands a merge delivered to two replicas at once exactly once", async () => {
    const replicas = ["replica-a", "replica-b"].map(
      (name) => new RepositoryCache({ workDir: `${fx.root}/${name}` }),
    );
    const results = await Promise.all(replicas.map((cache) => fastForwardTarget(cache, mergeJob())));
    expect(results.map((r) => r.mergedSha)).to.deep.equal([projected.testBranchSha, projected.testBranchSha]);
    const updates = (await fx.reflog("main")).filter((u) => !/^0+$/.test(u.from));
    expect(updates).to.deep.equal([{ from: originalMain, to: projected.testBranchSha }]);
  });

  it("rejects malformed merge jobs", async () => {
    for (const [override, field] of [
      [{ commitSha: "HEAD" }, "commitSha"],
      [{ mergeId: "a/b" }, "mergeId"],
      [{ targetBranch: "-f" }, "targetBranch"],
    ] as const) {
      const error = await rejection(fastForwardTarget(fx.cache, mergeJob(override)));
      expect(error).to.be.instanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).field).to.equal(field);
    }
  });
});

describe("deleteTestBranches", () => {
  let fx: RemoteFixture;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
  });

  afterEach(() => fx.dispose());

  it("deletes test branches from the remote and skips those already gone", async () => {
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    const built = await buildProjectedBranch(fx.cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: "run-9",
      mergeMethod: "SQUASH",
      pullRequests: [{ number: 1, title: "One" }],
    });

    const deleted = await deleteTestBranches(fx.cache, fx.url, [
      built.testBranch,
      "mainline/test/main/never-existed",
    ]);

    expect(deleted).to.deep.equal([built.testBranch]);
    expect(await fx.remoteBranches()).to.deep.equal(["main"]);
    expect(await deleteTestBranches(fx.cache, fx.url, [built.testBranch])).to.deep.equal([]);
  });
});
