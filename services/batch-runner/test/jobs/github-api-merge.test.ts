import { expect } from "chai";
import { join } from "node:path";
import type { JetStreamClient } from "nats";
import {
  GitHubDouble,
  makeTestAppCredentials,
  rejection,
  secondaryRateLimit,
  tooManyRequests,
} from "@mainline/testing";
import { UnavailableError } from "@mainline/kit/errors/index";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { createLogger } from "@mainline/kit/logging/index";
import { MergeJob, MergeMethod, MergeOutcome, MergeResult } from "@mainline/proto/queue";
import { GitCredentials } from "../../src/git/git-credentials.js";
import { TargetMovedError } from "../../src/git/git-errors.js";
import { buildProjectedBranch, type ProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { mergeThroughGitHub, PartialMergeError } from "../../src/jobs/github-api-merge.js";
import { GITHUB_PATIENCE_MS, GITHUB_WAIT_DELIVERIES } from "../../src/jobs/github-wait.js";
import { mergeJobHandler } from "../../src/jobs/merge-handler.js";
import { readMergeJob } from "../../src/jobs/merge-request.js";
import { RemoteFixture } from "../git/remote-fixture.js";

const INSTALLATION = 88;
const app = makeTestAppCredentials(8080);
const MERGE = "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge";
const PULL = "GET /repos/{owner}/{repo}/pulls/{pull_number}";
const openPull = { status: 200, body: { state: "open", merged: false, merge_commit_sha: null } };

/**
 * Merging through GitHub's merge API (SQUASH/REBASE queues of an App's repositories), against the GitHub double
 * and a real git remote holding the tested commits.
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

  describe("the merge job: GitHub's retry-after and PRs that landed", function () {
    this.timeout(90_000);
    const MAX_DELIVER = 6;
    let published: MergeResult[];
    const js = {
      publish: (_subject: string, data: Uint8Array) => {
        published.push(MergeResult.decode(data));
        return Promise.resolve({ stream: "results", seq: published.length, duplicate: false });
      },
    } as unknown as JetStreamClient;
    const handler = () =>
      mergeJobHandler({
        js,
        cache,
        logger: createLogger("test", "silent"),
        clock: () => new Date(),
        maxDeliver: MAX_DELIVER,
        github,
      });
    const deliver = (
      h: ReturnType<typeof handler>,
      deliveryCount: number,
      publishedAt = new Date(),
      data = job(),
    ) =>
      h({
        data,
        subject: "jobs.merge",
        msgId: "m",
        deliveryCount,
        streamSequence: 1,
        headers: undefined,
        publishedAt,
      });
    beforeEach(() => {
      published = [];
    });

    for (const [what, reply] of [
      ["429", tooManyRequests(90)],
      ["403 secondary rate limit", secondaryRateLimit(90)],
    ] as const) {
      it(`waits GitHub's retry-after on a ${what} of the merge call, without spending the job's failure budget`, async () => {
        double.script(PULL, openPull, Infinity);
        double.script(MERGE, reply, 3);
        const h = handler();
        // The job's last delivery by the failure budget: before, a rate limit here ended the merge as FAILED.
        for (const count of [MAX_DELIVER - 1, MAX_DELIVER, MAX_DELIVER + 1]) {
          const error = await rejection(deliver(h, count));
          expect(error, String(count)).to.be.instanceOf(UnavailableError);
          expect((error as UnavailableError).retryAfterMs).to.equal(90_000);
          expect((error as Error).message).to.match(/waiting 90 s as GitHub asked/);
        }
        expect(published, "no result while GitHub asks to wait").to.deep.equal([]);
        // GitHub takes it now: merged, every PR once.
        await deliver(h, MAX_DELIVER + 2);
        expect(published.map((r) => r.outcome)).to.deep.equal([MergeOutcome.MERGED]);
        expect(double.calls(MERGE).map((c) => c.pathParams.pull_number)).to.deep.equal([
          "1",
          "1",
          "1",
          "1",
          "2",
        ]);
      });
    }

    it("stops waiting once the job is older than its patience, or on the consumer's last delivery, and ends it", async () => {
      double.script(PULL, openPull, Infinity);
      double.script(MERGE, tooManyRequests(90), Infinity);
      // Past its patience a rate limit is a failure like any other: retried by the budget, then FAILED.
      const old = new Date(Date.now() - GITHUB_PATIENCE_MS);
      const retried = await rejection(deliver(handler(), 2, old));
      expect((retried as UnavailableError).retryAfterMs, "the runner's own backoff").to.equal(2_000);
      await deliver(handler(), MAX_DELIVER, old);
      expect(published.map((r) => r.outcome)).to.deep.equal([MergeOutcome.FAILED]);
      // The consumer's last delivery ends the job with a result, whatever GitHub asks.
      await deliver(handler(), MAX_DELIVER + GITHUB_WAIT_DELIVERIES);
      expect(published.map((r) => r.outcome)).to.deep.equal([MergeOutcome.FAILED, MergeOutcome.FAILED]);
    });

    it("reports the PRs that landed when GitHub merged #1 and refused #2, rather than failing the merge", async () => {
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

      double.script(PULL, openPull, 2);
      await deliver(handler(), 1);
      const [result] = published;
      expect(result?.outcome).to.equal(MergeOutcome.TARGET_MOVED);
      expect(result?.mergedPrNumbers).to.deep.equal([1]);
      const mergedSha = (double.calls(MERGE)[0]!.responseBody as { sha: string }).sha;
      expect(result?.landedShas).to.deep.equal([mergedSha]);
      expect(result?.newTargetSha).to.equal(mergedSha);
      expect(result?.message).to.match(
        /merged #1 through the GitHub API, then #2 was refused.*not mergeable/,
      );
    });

    it("waits out a rate limit on #2 after #1 merged, and the redelivery merges only #2", async () => {
      double.script(PULL, openPull, 2);
      double.script(MERGE, (r) => (r.pathParams.pull_number === "2" ? tooManyRequests(30) : undefined), 1);
      const h = handler();
      const error = await rejection(deliver(h, 1));
      expect((error as UnavailableError).retryAfterMs).to.equal(30_000);
      expect(published).to.deep.equal([]);
      const mergedSha = (double.calls(MERGE)[0]!.responseBody as { sha: string }).sha;
      double.script(PULL, {
        status: 200,
        body: { state: "closed", merged: true, merge_commit_sha: mergedSha },
      });
      double.script(PULL, openPull);
      await deliver(h, 2);
      expect(published.map((r) => r.outcome)).to.deep.equal([MergeOutcome.MERGED]);
      expect(double.calls(MERGE).map((c) => c.pathParams.pull_number)).to.deep.equal(["1", "2", "2"]);
    });
  });
});
