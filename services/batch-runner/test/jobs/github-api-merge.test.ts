import { expect } from "chai";
import { rejection, type GitHubDouble } from "@mainline/testing";
import type { GitHubAppClient } from "@mainline/kit/github/index";
import { TargetMovedError } from "../../src/git/git-errors.js";
import type { RepositoryCache } from "../../src/git/repository-cache.js";
import { mergeThroughGitHub, PartialMergeError } from "../../src/jobs/github-api-merge.js";
import { readMergeJob } from "../../src/jobs/merge-request.js";
import type { RemoteFixture } from "../git/remote-fixture.js";
import { GitHubMergeFixture, INSTALLATION, MERGE, openPull, PULL } from "./github-merge-fixture.js";

/**
 * Merging through GitHub's merge API (SQUASH/REBASE queues of an App's repositories), against the GitHub double
 * and a real git remote holding the tested commits. The merge job on the bus (retry-after waits, redelivery,
 * max-deliver) is in github-merge-on-the-bus.test.ts.
 */
describe("merge through the GitHub API", function () {
  this.timeout(30_000);
  let g: GitHubMergeFixture;
  let fx: RemoteFixture;
  let double: GitHubDouble;
  let github: GitHubAppClient;
  let cache: RepositoryCache;
  let heads: Record<number, string>;

  const merge = (j = g.job()) => mergeThroughGitHub(github, cache, readMergeJob(j), j);

  beforeEach(async () => {
    g = await GitHubMergeFixture.create();
    ({ fx, double, github, cache, heads } = g);
  });

  afterEach(() => g.dispose());

  it("merges each PR in queue order with its tested head sha and the queue's method", async () => {
    double.script(PULL, openPull, 2);
    const result = await merge();
    const calls = double.calls(MERGE);
    expect(calls.map((c) => c.pathParams.pull_number)).to.deep.equal(["1", "2"]);
    expect(calls.map((c) => (c.body as { sha: string }).sha)).to.deep.equal([heads[1], heads[2]]);
    expect(calls.every((c) => (c.body as { merge_method: string }).merge_method === "squash")).to.equal(true);
    expect(calls.every((c) => c.credential === INSTALLATION)).to.equal(true);
    expect(result.landedShas).to.have.length(2);
    expect(result.alreadyMerged).to.equal(false);
  });

  it("refuses to merge when the target moved outside the queue, and calls no merge", async () => {
    double.script(PULL, openPull, 2);
    await fx.advanceTarget({ "elsewhere.txt": "x\n" }, "Pushed by hand");
    const error = await rejection(merge());
    expect(error).to.be.instanceOf(TargetMovedError);
    expect((error as Error).message).to.match(/not what the run was built on/);
    expect(double.calls(MERGE)).to.have.length(0);
  });

  it("skips the PRs GitHub already shows as merged (a redelivered merge job)", async () => {
    double.script(PULL, {
      status: 200,
      body: { state: "closed", merged: true, merge_commit_sha: "a".repeat(40) },
    });
    double.script(PULL, openPull);
    // Target moved by the first PR's own merge: that is no reason to stop once a PR of the job is merged.
    await fx.advanceTarget({ "one.txt": "1\n" }, "Change 1 (#1)");
    const result = await merge();
    expect(double.calls(MERGE).map((c) => c.pathParams.pull_number)).to.deep.equal(["2"]);
    expect(result.landedShas[0]).to.equal("a".repeat(40));
  });

  it("does not merge a PR that was closed meanwhile", async () => {
    double.script(PULL, { status: 200, body: { state: "closed", merged: false, merge_commit_sha: null } });
    double.script(PULL, openPull);
    const error = await rejection(merge());
    expect(error).to.be.instanceOf(TargetMovedError);
    expect((error as Error).message).to.match(/pull request #1 was closed/);
    expect(double.calls(MERGE)).to.have.length(0);
  });

  it("stops at a PR GitHub refuses, naming the PRs that landed before it", async () => {
    double.script(PULL, openPull, 2);
    g.refuseSecond();
    const error = await rejection(merge());
    expect(error).to.be.instanceOf(PartialMergeError);
    expect((error as PartialMergeError).mergedPrs).to.deep.equal([1]);
  });
});
