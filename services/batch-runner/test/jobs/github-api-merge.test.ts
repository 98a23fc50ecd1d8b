import { expect } from "chai";
import { join } from "node:path";
import { GitHubDouble, makeTestAppCredentials, rejection } from "@mainline/testing";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { createLogger } from "@mainline/kit/logging/index";
import { MergeJob, MergeMethod } from "@mainline/proto/queue";
import { GitCredentials } from "../../src/git/git-credentials.js";
import { TargetMovedError } from "../../src/git/git-errors.js";
import { buildProjectedBranch, type ProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { mergeThroughGitHub, PartialMergeError } from "../../src/jobs/github-api-merge.js";
import { readMergeJob } from "../../src/jobs/merge-request.js";
import { RemoteFixture } from "../git/remote-fixture.js";

const INSTALLATION = 88;
const app = makeTestAppCredentials(8080);
const MERGE = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge";
const PULL = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
const openPull = { status: 200, body: { state: "open", merged: false, merge_commit_sha: null } };

/**
 * Merging through GitHub's merge API (SQUASH/REBASE queues of an App's repositories), against the GitHub double
 * and a real git remote holding the tested commits. The merge job on the bus (retry-after waits, redelivery,
 * max-deliver) is in github-merge-on-the-bus.test.ts.
 */
describe("merge through the GitHub API", function () {
  this.timeout(30_000);
  let fx: RemoteFixture;
  let double: GitHubDouble;
  let github: GitHubAppClient;
  let cache: RepositoryCache;
  let heads: Record<number, string>;
  let projected: ProjectedBranch;

  const job = (): MergeJob =>
    MergeJob.fromPartial({
      mergeId: "merge-1",
      queue: { org: "acme", repo: { host: "github.com", owner: "acme", name: "app" }, targetBranch: "main" },
      remoteUrl: fx.url,
      pullRequests: [1, 2].map((n) => ({
        number: n,
        testedCommitSha: projected.commitsByPr[n],
        headSha: heads[n],
        title: `Change ${n}`,
      })),
      testedSha: projected.testBranchSha,
      testBranch: projected.testBranch,
      github: { installationId: INSTALLATION, mergeThroughApi: true },
      mergeMethod: MergeMethod.SQUASH,
    });
  const merge = (j = job()) => mergeThroughGitHub(github, cache, readMergeJob(j), j);

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    heads = {
      1: await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]),
      2: await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]),
    };
    double = await GitHubDouble.start({
      app,
      installations: [{ id: INSTALLATION, account: "acme", repositories: ["acme/app"] }],
    });
    github = new GitHubAppClient({
      settings: {
        appId: app.appId,
        privateKey: app.privateKey,
        webhookSecret: undefined,
        apiUrl: double.url,
      },
      logger: createLogger("test", "silent"),
      writeSpacingMs: 0,
      // GitHub's retry-after is handed back at once, for the job to wait out on the bus.
      maxInlineWaitMs: 0,
      retryUnitMs: 10,
    });
    cache = new RepositoryCache({
      workDir: join(fx.root, "work"),
      credentials: new GitCredentials(undefined, github),
    });
    projected = await buildProjectedBranch(cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: "run-1",
      mergeMethod: "SQUASH",
      pullRequests: [
        { number: 1, title: "Change 1" },
        { number: 2, title: "Change 2" },
      ],
    });
  });

  afterEach(async () => {
    double.assertNoViolations();
    await double.stop();
    await fx.dispose();
  });

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
    double.script(
      MERGE,
      (r) =>
        r.pathParams.pull_number === "2"
          ? { status: 405, body: { message: "Pull Request is not mergeable" } }
          : undefined,
      Infinity,
    );
    const error = await rejection(merge());
    expect(error).to.be.instanceOf(PartialMergeError);
    expect((error as PartialMergeError).mergedPrs).to.deep.equal([1]);
  });
});
