import { expect } from "chai";
import { rejection } from "@mainline/testing";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { MergeMethod } from "../../src/git/apply-pull-request.js";
import {
  MergeConflictError,
  PullRequestHeadMismatchError,
  RemoteRefNotFoundError,
} from "../../src/git/git-errors.js";
import { buildProjectedBranch, type ProjectedBranchJob } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { RemoteFixture } from "./remote-fixture.js";

describe("buildProjectedBranch", () => {
  let fx: RemoteFixture;
  let mainSha: string;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    mainSha = (await fx.remoteSha("refs/heads/main"))!;
    await fx.openPullRequest(11, [{ files: { "a.txt": "a\n" }, message: "Add a" }]);
    await fx.openPullRequest(12, [
      { files: { "b.txt": "b\n" }, message: "Add b" },
      { files: { "b.txt": "b2\n" }, message: "Change b" },
    ]);
    await fx.openPullRequest(13, [{ files: { "c.txt": "c\n" }, message: "Add c" }]);
  });

  afterEach(() => fx.dispose());

  function job(method: MergeMethod, overrides: Partial<ProjectedBranchJob> = {}): ProjectedBranchJob {
    return {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: "run-1",
      mergeMethod: method,
      pullRequests: [
        { number: 11, title: "Add feature A" },
        { number: 12, title: "Add feature B" },
        { number: 13, title: "Add feature C" },
      ],
      ...overrides,
    };
  }

  it("squashes each PR into one commit titled 'Title (#N)', in queue order", async () => {
    const result = await buildProjectedBranch(fx.cache, job("SQUASH"));

    expect(result.testBranch).to.equal("mainline/test/main/run-1");
    expect(await fx.remoteSha("refs/heads/mainline/test/main/run-1")).to.equal(result.testBranchSha);
    const log = await fx.log(result.testBranch, 4);
    expect(log.map((c) => c.subject)).to.deep.equal([
      "Add feature C (#13)",
      "Add feature B (#12)",
      "Add feature A (#11)",
      "Initial commit",
    ]);
    expect(log.slice(0, 3).every((c) => c.parents.length === 1)).to.be.true;
    expect(log[0]!.body).to.contain("Mainline-PR: 13");
    expect(result.commitsByPr).to.deep.equal({ 11: log[2]!.sha, 12: log[1]!.sha, 13: log[0]!.sha });
    expect(result.baseSha).to.equal(mainSha);
    expect(await fx.remote.text(["show", `${result.testBranchSha}:b.txt`])).to.equal("b2");
    expect(result.reused).to.be.false;
  });

  it("makes one merge commit per PR whose second parent is the PR head", async () => {
    const head12 = (await fx.remoteSha("refs/pull/12/head"))!;
    const result = await buildProjectedBranch(fx.cache, job("MERGE_COMMIT"));

    const log = await fx.log(result.testBranch, 4);
    expect(log.map((c) => c.subject)).to.deep.equal([
      "Merge pull request #13",
      "Merge pull request #12",
      "Merge pull request #11",
      "Initial commit",
    ]);
    expect(log[1]!.parents).to.deep.equal([log[2]!.sha, head12]);
    expect(log[1]!.body).to.contain("Add feature B").and.to.contain("Mainline-PR: 12");
    expect(log[1]!.author).to.equal("Mainline");
    expect(result.commitsByPr[12]).to.equal(log[1]!.sha);
  });

  it("replays a rebased PR's commits, keeping their authors and messages", async () => {
    const result = await buildProjectedBranch(fx.cache, job("REBASE"));

    const log = await fx.log(result.testBranch, 5);
    expect(log.map((c) => c.subject)).to.deep.equal([
      "Add c",
      "Change b",
      "Add b",
      "Add a",
      "Initial commit",
    ]);
    expect(log.slice(0, 4).every((c) => c.parents.length === 1 && c.author === "Dev Eloper")).to.be.true;
    expect(log[2]!.body).to.contain("Mainline-PR: 12");
    expect(result.commitsByPr).to.deep.equal({ 11: log[3]!.sha, 12: log[1]!.sha, 13: log[0]!.sha });
    const committer = await fx.remote.text(["log", "-1", "--format=%cn <%ce>", result.testBranchSha]);
    expect(committer).to.equal("Mainline <mainline@localhost>");
  });

  it("fails with MergeConflictError naming the PR and leaves no test branch or worktree", async () => {
    await fx.openPullRequest(14, [
      { files: { "src/app.txt": "line 1\nmine\nline 3\n" }, message: "Edit line 2" },
    ]);
    await fx.openPullRequest(15, [
      { files: { "src/app.txt": "line 1\ntheirs\nline 3\n" }, message: "Edit line 2 too" },
    ]);

    for (const method of ["SQUASH", "MERGE_COMMIT", "REBASE"] as const) {
      const error = await rejection(
        buildProjectedBranch(fx.cache, {
          ...job(method),
          testRunId: `conflict-${method}`,
          pullRequests: [
            { number: 14, title: "Mine" },
            { number: 15, title: "Theirs" },
          ],
        }),
      );
      expect(error).to.be.instanceOf(MergeConflictError);
      expect((error as MergeConflictError).prNumber).to.equal(15);
      expect((error as MergeConflictError).conflictingFiles).to.deep.equal(["src/app.txt"]);
    }
    expect(await fx.remoteBranches()).to.deep.equal(["main"]);
    expect(await fx.leftoverWorktrees()).to.deep.equal([]);
  });

  it("returns the existing branch for a redelivered job without pushing again", async () => {
    const first = await buildProjectedBranch(fx.cache, job("REBASE"));
    const reflogBefore = await fx.reflog(first.testBranch);

    const again = await buildProjectedBranch(fx.cache, job("REBASE"));

    expect(again.reused).to.be.true;
    expect(again.testBranchSha).to.equal(first.testBranchSha);
    expect(again.commitsByPr).to.deep.equal(first.commitsByPr);
    expect(again.baseSha).to.equal(first.baseSha);
    expect(await fx.reflog(first.testBranch)).to.deep.equal(reflogBefore);
  });

  it("reads a redelivered job's result on another replica with an empty cache", async () => {
    const first = await buildProjectedBranch(fx.cache, job("MERGE_COMMIT"));
    const otherReplica = new RepositoryCache({ workDir: `${fx.root}/other-replica` });

    const again = await buildProjectedBranch(otherReplica, job("MERGE_COMMIT"));

    expect(again).to.deep.equal({ ...first, reused: true });
  });

  it("agrees on one test branch when several replicas build the same job at once", async () => {
    const replicas = ["a", "b", "c"].map(
      (name) => new RepositoryCache({ workDir: `${fx.root}/replica-${name}` }),
    );
    const results = await Promise.all(
      replicas.map((cache) => buildProjectedBranch(cache, job("MERGE_COMMIT"))),
    );
    const onRemote = await fx.remoteSha("refs/heads/mainline/test/main/run-1");
    expect(results.map((r) => r.testBranchSha)).to.deep.equal([onRemote, onRemote, onRemote]);
    expect(results[1]!.commitsByPr).to.deep.equal(results[0]!.commitsByPr);
  });

  it("starts from a given base sha instead of the target's head", async () => {
    await fx.advanceTarget({ "later.txt": "later\n" }, "Later on main");
    const result = await buildProjectedBranch(
      fx.cache,
      job("SQUASH", { baseSha: mainSha, pullRequests: [{ number: 11, title: "A" }] }),
    );

    const log = await fx.log(result.testBranch, 2);
    expect(log[0]!.parents).to.deep.equal([mainSha]);
    expect(result.baseSha).to.equal(mainSha);
  });

  it("takes PR heads from a configured pull ref pattern", async () => {
    await fx.openPullRequest(21, [{ files: { "mr.txt": "mr\n" }, message: "MR" }], {
      ref: "refs/merge-requests/21/head",
    });
    const result = await buildProjectedBranch(
      fx.cache,
      job("SQUASH", {
        pullRefPattern: "refs/merge-requests/{number}/head",
        pullRequests: [{ number: 21, title: "From GitLab" }],
      }),
    );
    expect((await fx.log(result.testBranch, 1))[0]!.subject).to.equal("From GitLab (#21)");
  });

  it("rejects a PR whose head is not the expected sha", async () => {
    const head11 = (await fx.remoteSha("refs/pull/11/head"))!;
    const stale = mainSha;
    const error = await rejection(
      buildProjectedBranch(
        fx.cache,
        job("SQUASH", { pullRequests: [{ number: 11, title: "A", expectedHeadSha: stale }] }),
      ),
    );
    expect(error).to.be.instanceOf(PullRequestHeadMismatchError);
    expect(error).to.include({ prNumber: 11, expectedSha: stale, actualSha: head11 });

    const ok = await buildProjectedBranch(
      fx.cache,
      job("SQUASH", { pullRequests: [{ number: 11, title: "A", expectedHeadSha: head11 }] }),
    );
    expect(ok.commitsByPr[11]).to.equal(ok.testBranchSha);
  });

  it("names the PR whose head ref is missing on the remote", async () => {
    const error = await rejection(
      buildProjectedBranch(fx.cache, job("SQUASH", { pullRequests: [{ number: 99, title: "Ghost" }] })),
    );
    expect(error).to.be.instanceOf(RemoteRefNotFoundError);
    expect(error).to.include({ prNumber: 99, ref: "refs/pull/99/head" });
  });

  it("rejects a missing target branch", async () => {
    const error = await rejection(buildProjectedBranch(fx.cache, job("SQUASH", { targetBranch: "release" })));
    expect(error).to.be.instanceOf(RemoteRefNotFoundError);
    expect(error).to.include({ ref: "refs/heads/release" });
  });

  it("rejects malformed jobs before touching git", async () => {
    const bad: Array<[Partial<ProjectedBranchJob>, string]> = [
      [{ targetBranch: "--upload-pack=x" }, "targetBranch"],
      [{ targetBranch: "main..other" }, "targetBranch"],
      [{ testRunId: "../escape" }, "testRunId"],
      [{ testRunId: "" }, "testRunId"],
      [{ mergeMethod: "FAST_FORWARD" as MergeMethod }, "mergeMethod"],
      [{ pullRequests: [] }, "pullRequests"],
      [{ pullRequests: [{ number: -1, title: "x" }] }, "pullRequests.number"],
      [
        {
          pullRequests: [
            { number: 11, title: "x" },
            { number: 11, title: "y" },
          ],
        },
        "pullRequests",
      ],
      [
        { pullRequests: [{ number: 11, title: "x", expectedHeadSha: "HEAD~1" }] },
        "pullRequests.expectedHeadSha",
      ],
      [{ baseSha: "main" }, "baseSha"],
      [{ pullRefPattern: "refs/pull/head" }, "pullRefPattern"],
      [{ remoteUrl: "--upload-pack=touch /tmp/x" }, "remoteUrl"],
    ];
    for (const [override, field] of bad) {
      const error = await rejection(buildProjectedBranch(fx.cache, job("SQUASH", override)));
      expect(error, field).to.be.instanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).field).to.equal(field);
    }
    expect(await fx.remoteBranches()).to.deep.equal(["main"]);
  });

  it("still gives a PR already contained in the target its own commit", async () => {
    await fx.advanceTarget({}, "Unrelated");
    await fx.clone.run(["push", "--quiet", "origin", "refs/remotes/origin/main:refs/pull/30/head"]);
    for (const method of ["SQUASH", "MERGE_COMMIT", "REBASE"] as const) {
      const result = await buildProjectedBranch(
        fx.cache,
        job(method, { testRunId: `empty-${method}`, pullRequests: [{ number: 30, title: "Nothing new" }] }),
      );
      const [tip] = await fx.log(result.testBranch, 1);
      expect(tip!.sha, method).to.not.equal(result.baseSha);
      expect(tip!.body, method).to.contain("Mainline-PR: 30");
    }
  });

  it("builds concurrent jobs on one remote through one mirror without corrupting it", async () => {
    const runs = await Promise.all(
      ["SQUASH", "MERGE_COMMIT", "REBASE", "SQUASH", "REBASE"].map((method, i) =>
        buildProjectedBranch(fx.cache, job(method as MergeMethod, { testRunId: `parallel-${i}` })),
      ),
    );
    expect(new Set(runs.map((r) => r.testBranch)).size).to.equal(5);
    for (const run of runs)
      expect(await fx.remoteSha(`refs/heads/${run.testBranch}`)).to.equal(run.testBranchSha);
    const mirror = await fx.cache.open(fx.url);
    await mirror.git.run(["fsck", "--no-progress"]);
    expect(await fx.leftoverWorktrees()).to.deep.equal([]);
  });
});
