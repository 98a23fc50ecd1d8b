import { expect } from "chai";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { buildProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { withTestCommitWorktree } from "../../src/git/test-commit-worktree.js";
import { runCommand } from "../../src/runner/command-runner.js";
import { RemoteFixture } from "./remote-fixture.js";

describe("withTestCommitWorktree", () => {
  let fx: RemoteFixture;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [
      { files: { "test.sh": "test -f feature.txt\n", "feature.txt": "on\n" }, message: "Feature" },
    ]);
    await fx.openPullRequest(2, [{ files: { "feature.txt": "" }, message: "Break" }]);
  });

  afterEach(() => fx.dispose());

  it("runs the test command on the test commit and removes the worktree after", async () => {
    const built = await buildProjectedBranch(fx.cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: "run-1",
      mergeMethod: "SQUASH",
      pullRequests: [{ number: 1, title: "Feature" }],
    });
    // Another replica runs the tests: it has to fetch the commit it did not build.
    const runner = new RepositoryCache({ workDir: join(fx.root, "runner-replica") });
    let worktree = "";

    const result = await withTestCommitWorktree(runner, { remoteUrl: fx.url, ...built }, async (path) => {
      worktree = path;
      return runCommand({ command: "sh test.sh && git rev-parse HEAD", cwd: path, timeoutMs: 10_000 });
    });

    expect(result.outcome).to.equal("PASSED");
    expect(result.outputTail.trim()).to.equal(built.testBranchSha);
    expect(existsSync(worktree)).to.be.false;
    const mirror = await runner.open(fx.url);
    expect(await mirror.git.text(["worktree", "list", "--porcelain"])).not.to.contain(worktree);
  });

  it("removes the worktree when the work inside it throws", async () => {
    const built = await buildProjectedBranch(fx.cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: "run-2",
      mergeMethod: "MERGE_COMMIT",
      pullRequests: [{ number: 1, title: "Feature" }],
    });
    let worktree = "";
    let caught: unknown;
    try {
      await withTestCommitWorktree(fx.cache, { remoteUrl: fx.url, ...built }, (path) => {
        worktree = path;
        return Promise.reject(new RangeError("runner crashed"));
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(RangeError);
    expect(existsSync(worktree)).to.be.false;
    expect(await fx.leftoverWorktrees()).to.deep.equal([]);
  });
});
