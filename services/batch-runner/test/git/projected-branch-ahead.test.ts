import { expect } from "chai";
import type { MergeMethod } from "../../src/git/apply-pull-request.js";
import { fastForwardTarget } from "../../src/git/merge.js";
import { buildProjectedBranch, type ProjectedBranchJob } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { RemoteFixture } from "./remote-fixture.js";

/**
 * Issue 15 item 4: a run decided while the PR ahead was still merging lists it as a PR ahead, and
 * may be built on a target that already holds it. It must not be applied a second time.
 */
describe("buildProjectedBranch with a PR ahead already on the target", () => {
  let fx: RemoteFixture;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
  });

  afterEach(() => fx.dispose());

  function job(runId: string, method: MergeMethod, ahead: number[], underTest: number[]): ProjectedBranchJob {
    return {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: runId,
      mergeMethod: method,
      pullRequests: [
        ...ahead.map((n) => ({ number: n, title: `PR ${n}`, aheadOnly: true })),
        ...underTest.map((n) => ({ number: n, title: `PR ${n}` })),
      ],
    };
  }

  async function mergeOne(method: MergeMethod): Promise<string> {
    const first = await buildProjectedBranch(fx.cache, job("run-1", method, [], [1]));
    await fastForwardTarget(fx.cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      mergeId: "merge-1",
      commitSha: first.testBranchSha,
    });
    return first.testBranchSha;
  }

  for (const method of ["SQUASH", "MERGE_COMMIT", "REBASE"] as const) {
    it(`skips a PR ahead that merged on the target, building only the PR under test (${method})`, async () => {
      const main = await mergeOne(method);

      const built = await buildProjectedBranch(fx.cache, job("run-2", method, [1], [2]));

      const log = await fx.log(built.testBranch, 2);
      expect(log.map((c) => c.subject)).to.deep.equal([
        method === "MERGE_COMMIT" ? "Merge pull request #2" : method === "SQUASH" ? "PR 2 (#2)" : "Two",
        (await fx.log("main", 1))[0]!.subject,
      ]);
      expect(log[1]!.sha).to.equal(main);
      expect(built).to.include({ baseSha: main, testBranchSha: log[0]!.sha });
      expect(built.commitsByPr).to.deep.equal({ 1: main, 2: log[0]!.sha });
    });
  }

  it("skips a PR ahead whose change the target already holds without its trailer", async () => {
    const main = await fx.advanceTarget({ "one.txt": "1\n" }, "One, pushed by hand");

    const built = await buildProjectedBranch(fx.cache, job("run-2", "SQUASH", [1], [2]));

    const log = await fx.log(built.testBranch, 2);
    expect(log.map((c) => c.sha)).to.deep.equal([built.testBranchSha, main]);
    expect(built.commitsByPr).to.deep.equal({ 1: main, 2: built.testBranchSha });
  });

  it("reads a redelivered job's branch with the skipped PR back the same, on another replica", async () => {
    await mergeOne("SQUASH");
    const built = await buildProjectedBranch(fx.cache, job("run-2", "SQUASH", [1], [2]));
    const otherReplica = new RepositoryCache({ workDir: `${fx.root}/other-replica` });

    const again = await buildProjectedBranch(otherReplica, job("run-2", "SQUASH", [1], [2]));

    expect(again).to.deep.equal({ ...built, reused: true });
  });

  it("still applies a PR ahead the target does not hold", async () => {
    const built = await buildProjectedBranch(fx.cache, job("run-2", "SQUASH", [1], [2]));
    const log = await fx.log(built.testBranch, 3);
    expect(log.map((c) => c.subject)).to.deep.equal(["PR 2 (#2)", "PR 1 (#1)", "Initial commit"]);
  });
});
