import { expect } from "chai";
import { join } from "node:path";
import { branchMoves, rejection } from "@mainline/testing";
import type { MergeMethod } from "../../src/git/apply-pull-request.js";
import { TargetMovedError } from "../../src/git/git-errors.js";
import { fastForwardTarget } from "../../src/git/merge.js";
import { buildProjectedBranch, type ProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { RemoteFixture } from "./remote-fixture.js";

const TITLES: Record<number, string> = { 1: "One", 2: "Two", 3: "Three" };

describe("fastForwardTarget after the PRs ahead merged from their own runs", function () {
  // Each case runs some 60 real git commands; on a loaded 2-core machine one took over 20 s.
  this.timeout(60_000);
  let fx: RemoteFixture;
  let originalMain: string;
  // Another replica a moment later: its commits of the same PRs get other shas, as in production.
  let later: RepositoryCache;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    originalMain = (await fx.remoteSha("refs/heads/main"))!;
    later = new RepositoryCache({
      workDir: join(fx.root, "later-replica"),
      env: { GIT_COMMITTER_DATE: "2030-01-01T00:00:00Z" },
    });
  });

  afterEach(() => fx.dispose());

  function build(
    runId: string,
    prs: number[],
    method: MergeMethod = "SQUASH",
    cache = fx.cache,
  ): Promise<ProjectedBranch> {
    return buildProjectedBranch(cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      testRunId: runId,
      mergeMethod: method,
      pullRequests: prs.map((n) => ({ number: n, title: TITLES[n] ?? `PR ${n}` })),
    });
  }

  function merge(
    run: ProjectedBranch,
    options: { otherLanesMayMerge?: boolean; cache?: RepositoryCache } = {},
  ) {
    return fastForwardTarget(options.cache ?? fx.cache, {
      remoteUrl: fx.url,
      targetBranch: "main",
      mergeId: `merge-${run.testBranch.split("/").at(-1)}`,
      commitSha: run.testBranchSha,
      testBranch: run.testBranch,
      ...(options.otherLanesMayMerge !== undefined && { otherLanesMayMerge: options.otherLanesMayMerge }),
    });
  }

  async function tree(sha: string): Promise<string> {
    return fx.remote.text(["rev-parse", `${sha}^{tree}`]);
  }

  /** main moved `moves` times since it was created, each a fast-forward. */
  function expectOnlyFastForwards(moves: number): void {
    expect(branchMoves(fx.remote.cwd, "refs/heads/main")).to.deep.equal({ moves, forced: [] });
  }

  async function expectNoEmptyCommits(count: number): Promise<void> {
    const commits = (await fx.log("main", count)).filter((c) => c.parents.length > 0);
    // The oldest of them is the repository's root commit.
    expect(commits, "commits checked").to.have.length(count - 1);
    for (const commit of commits) {
      expect(await tree(commit.sha), `"${commit.subject}" is empty`).not.to.equal(
        await tree(commit.parents[0]!),
      );
    }
  }

  for (const method of ["SQUASH", "MERGE_COMMIT", "REBASE"] as const) {
    it(`lands a passing run as tested once the PRs ahead merged from their own runs (${method})`, async () => {
      for (const n of [1, 2, 3]) {
        await fx.openPullRequest(n, [{ files: { [`pr${n}.txt`]: `${n}\n` }, message: TITLES[n]! }]);
      }
      const third = await build("run-3", [1, 2, 3], method);
      await merge(await build("run-1", [1], method, later), { cache: later });
      await merge(await build("run-2", [1, 2], method, later), { cache: later });
      const before = (await fx.remoteSha("refs/heads/main"))!;

      const result = await merge(third);

      const main = (await fx.remoteSha("refs/heads/main"))!;
      expect(result).to.include({ previousSha: before, mergedSha: main, alreadyMerged: false });
      expect(await tree(main)).to.equal(await tree(third.testBranchSha));
      const log = await fx.log("main", 5);
      expect(log.map((c) => c.body)).to.satisfy((bodies: string[]) =>
        [3, 2, 1].every((n, i) => bodies[i]!.includes(`Mainline-PR: ${n}`)),
      );
      expect(log[3]!.sha).to.equal(originalMain);
      if (method === "MERGE_COMMIT") expect(log[0]!.parents).to.have.length(2);
      expectOnlyFastForwards(3);
    });
  }

  it("reports a redelivered replayed merge as already merged without pushing", async () => {
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
    const second = await build("run-2", [1, 2]);
    await merge(await build("run-1", [1], "SQUASH", later), { cache: later });
    const first = await merge(second);
    const reflog = await fx.reflog("main");

    const again = await merge(second);

    expect(again).to.include({ alreadyMerged: true, mergedSha: first.mergedSha });
    expect(await fx.reflog("main")).to.deep.equal(reflog);
  });

  it("never lands an empty re-application of a PR already on the target", async () => {
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
    await merge(await build("run-1", [1]));
    const afterOne = (await fx.remoteSha("refs/heads/main"))!;
    // Decided while #1 was still merging: #1 is a dependency, the target already holds it.
    const second = await build("run-2", [1, 2], "SQUASH", later);

    await merge(second, { cache: later });

    const log = await fx.log("main", 3);
    expect(log.map((c) => c.subject)).to.deep.equal(["Two (#2)", "One (#1)", "Initial commit"]);
    expect(log[1]!.sha).to.equal(afterOne);
    await expectNoEmptyCommits(3);
  });

  it("ignores an empty commit of the tested branch, whether it fast-forwards or replays", async () => {
    // A test branch as a batch-runner built it before #1's merge was seen: #1 re-applied empty.
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
    await merge(await build("run-1", [1]));
    await fx.clone.run(["fetch", "--quiet", "origin", "main"]);
    await fx.clone.run(["checkout", "--quiet", "--detach", "FETCH_HEAD"]);
    await fx.clone.run([
      "commit",
      "--quiet",
      "--allow-empty",
      "-m",
      "One (#1)",
      "--trailer",
      "Mainline-PR: 1",
    ]);
    await fx.commit({ "two.txt": "2\n" }, "Two (#2)\n\nMainline-PR: 2");
    const twoTested = await fx.clone.text(["rev-parse", "HEAD"]);
    await fx.commit({ "three.txt": "3\n" }, "Three (#3)\n\nMainline-PR: 3");
    const tip = await fx.clone.text(["rev-parse", "HEAD"]);
    await fx.clone.run(["push", "--quiet", "origin", "HEAD:refs/heads/mainline/test/main/run-old"]);
    const job = (commitSha: string, mergeId: string) => ({
      remoteUrl: fx.url,
      targetBranch: "main",
      mergeId,
      commitSha,
      testBranch: "mainline/test/main/run-old",
    });

    await fastForwardTarget(fx.cache, job(twoTested, "merge-two"));
    await fastForwardTarget(fx.cache, job(tip, "merge-three"));

    const log = await fx.log("main", 4);
    expect(log.map((c) => c.subject)).to.deep.equal(["Three (#3)", "Two (#2)", "One (#1)", "Initial commit"]);
    expect(await tree(log[0]!.sha)).to.equal(await tree(tip));
    await expectNoEmptyCommits(4);
  });

  it("lands a run built while the PR ahead was merging after the PR between merged from its own run", async () => {
    for (const n of [1, 2, 3]) {
      await fx.openPullRequest(n, [{ files: { [`pr${n}.txt`]: `${n}\n` }, message: TITLES[n]! }]);
    }
    const second = await build("run-2", [1, 2], "SQUASH", later);
    await merge(await build("run-1", [1]));
    // #1 is still a dependency of #3's run, but the target already holds it.
    const third = await build("run-3", [1, 2, 3]);
    await merge(second, { cache: later });

    await merge(third);

    const log = await fx.log("main", 4);
    expect(log.map((c) => c.subject)).to.deep.equal(["Three (#3)", "Two (#2)", "One (#1)", "Initial commit"]);
    expect(await tree(log[0]!.sha)).to.equal(await tree(third.testBranchSha));
    await expectNoEmptyCommits(4);
    expectOnlyFastForwards(3);
  });

  it("restarts when a PR ahead landed with other content than it was tested with", async () => {
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
    const second = await build("run-2", [1, 2]);
    const moved = await fx.advanceTarget({ "one.txt": "something else\n" }, "One (#1)\n\nMainline-PR: 1");

    const error = await rejection(merge(second));

    expect(error).to.be.instanceOf(TargetMovedError);
    expect(error).to.include({ currentSha: moved });
    expect((error as TargetMovedError).reason).to.match(/not the content they were tested with/);
    expect(await fx.remoteSha("refs/heads/main")).to.equal(moved);
  });

  it("restarts when someone pushed to the target after the PRs ahead merged", async () => {
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
    const second = await build("run-2", [1, 2]);
    await merge(await build("run-1", [1], "SQUASH", later), { cache: later });
    const moved = await fx.advanceTarget({ "hotfix.txt": "fix\n" }, "Hotfix");

    const error = await rejection(merge(second));

    expect(error).to.be.instanceOf(TargetMovedError);
    expect((error as TargetMovedError).reason).to.match(/was not merged by the queue/);
    expect(await fx.remoteSha("refs/heads/main")).to.equal(moved);
  });

  describe("independent lanes (PARALLEL mode)", () => {
    beforeEach(async () => {
      await fx.openPullRequest(1, [{ files: { "a/one.txt": "1\n" }, message: "One" }]);
      await fx.openPullRequest(2, [{ files: { "b/two.txt": "2\n" }, message: "Two" }]);
    });

    it("lands the second lane's PR as its own commit on top of the first, without re-testing", async () => {
      const laneA = await build("run-a", [1]);
      const laneB = await build("run-b", [2]);
      await merge(laneA, { otherLanesMayMerge: true });

      const result = await merge(laneB, { otherLanesMayMerge: true });

      const log = await fx.log("main", 3);
      expect(log.map((c) => c.subject)).to.deep.equal(["Two (#2)", "One (#1)", "Initial commit"]);
      expect(result.mergedSha).to.equal(log[0]!.sha);
      const files = await fx.remote.text(["ls-tree", "-r", "--name-only", "main"]);
      expect(files.split("\n")).to.include.members(["a/one.txt", "b/two.txt"]);
      expectOnlyFastForwards(2);
    });

    it("restarts a single-lane run when a PR it was not tested with merged ahead", async () => {
      const laneA = await build("run-a", [1]);
      const laneB = await build("run-b", [2]);
      await merge(laneA);

      const error = await rejection(merge(laneB));

      expect(error).to.be.instanceOf(TargetMovedError);
      expect((error as TargetMovedError).reason).to.match(/#1 on the target were not in the tested run/);
    });

    it("restarts when the other lane's change conflicts after all", async () => {
      await fx.openPullRequest(3, [
        { files: { "src/app.txt": "line 1\nthree\nline 3\n" }, message: "Three" },
      ]);
      await fx.openPullRequest(4, [{ files: { "src/app.txt": "line 1\nfour\nline 3\n" }, message: "Four" }]);
      const laneA = await build("run-a", [3]);
      const laneB = await build("run-b", [4]);
      await merge(laneA, { otherLanesMayMerge: true });
      const afterA = await fx.remoteSha("refs/heads/main");

      const error = await rejection(merge(laneB, { otherLanesMayMerge: true }));

      expect(error).to.be.instanceOf(TargetMovedError);
      expect((error as TargetMovedError).reason).to.match(/#4 no longer applies cleanly/);
      expect(await fx.remoteSha("refs/heads/main")).to.equal(afterA);
    });
  });
});
