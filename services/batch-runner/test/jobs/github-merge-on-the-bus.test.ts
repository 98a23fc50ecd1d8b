import { expect } from "chai";
import {
  secondaryRateLimit,
  tooManyRequests,
  type RecordedRequest,
  type ScriptedReply,
} from "@mainline/testing";
import { GitHubRetryableError } from "@mainline/kit/github/index";
import { STREAMS } from "@mainline/kit/streams/index";
import { MergeOutcome } from "@mainline/proto/queue";
import { JOB_CONSUMERS } from "../../src/bus/job-consumers.js";
import { GITHUB_PATIENCE_MS, GitHubWaits } from "../../src/jobs/github-wait.js";
import { BatchRunnerFixture, newRunId } from "../service/batch-runner-fixture.js";
import { GitHubMergeFixture, MERGE, openPull, PULL } from "./github-merge-fixture.js";

/** The merge consumer: 2 failures, and 3 deliveries on top for GitHub's waits (5 deliveries at most). */
const CONSUMERS = { ackWaitMs: 30_000, maxDeliver: 2, githubWaitDeliveries: 3 };

/**
 * A merge through GitHub's API on the real bus: the batch-runner started on a real nats-server, its merge
 * consumer provisioned there, and every retry-after a real nak with delay that the server redelivers, up to
 * the consumer's real max_deliver. GitHub is the double; the tested commits are on a real git remote.
 */
describe("merge through the GitHub API, on the bus: GitHub's retry-after and PRs that landed", function () {
  this.timeout(60_000);
  let g: GitHubMergeFixture;
  let service: BatchRunnerFixture;

  beforeEach(async () => {
    g = await GitHubMergeFixture.create();
    service = await BatchRunnerFixture.start(CONSUMERS, g.github);
  });

  afterEach(async () => {
    await service.stop();
    await g.dispose();
  });

  /** Publishes the job, waits for its result and for the consumer to settle it; returns both and the deliveries. */
  async function run(mergeId: string) {
    const seq = await service.publishMergeJob(g.job(mergeId));
    const result = await service.mergeResults.first(mergeId);
    await service.jobSettled(seq, JOB_CONSUMERS.merge);
    const info = await service.jsm.consumers.info(STREAMS.jobs.name, JOB_CONSUMERS.merge.durable);
    return { result, deliveries: info.delivered.consumer_seq, maxDeliver: info.config.max_deliver };
  }

  const merged = (n: number): RecordedRequest | undefined =>
    g.double.calls(MERGE).find((c) => c.pathParams.pull_number === String(n) && c.status === 200);
  /** GitHub's view of a pull request: merged once its merge call succeeded, open before. */
  const pullState = (r: RecordedRequest): ScriptedReply => {
    const done = merged(Number(r.pathParams.pull_number));
    const sha = (done?.responseBody as { sha?: string } | undefined)?.sha ?? null;
    return done === undefined
      ? openPull
      : { status: 200, body: { state: "closed", merged: true, merge_commit_sha: sha } };
  };
  /** Milliseconds between consecutive calls. */
  const gaps = (calls: RecordedRequest[]): number[] =>
    calls.slice(1).map((c, i) => c.receivedAt - (calls[i] as RecordedRequest).receivedAt);

  for (const [what, reply] of [
    ["429", tooManyRequests(1)],
    ["403 secondary rate limit", secondaryRateLimit(1)],
  ] as const) {
    it(`waits GitHub's retry-after on a ${what} through redeliveries that do not spend the failure budget`, async () => {
      g.double.script(PULL, pullState, Infinity);
      g.double.script(MERGE, reply, 3);
      const { result, deliveries } = await run(newRunId("merge"));
      expect(result.outcome).to.equal(MergeOutcome.MERGED, result.message);
      // Four deliveries where two failures would have ended the job: three waits, then the merge.
      expect(deliveries).to.equal(4);
      const calls = g.double.calls(MERGE);
      expect(calls.map((c) => c.pathParams.pull_number)).to.deep.equal(["1", "1", "1", "1", "2"]);
      // Each redelivery came after GitHub's retry-after (1 s), not at once.
      for (const gap of gaps(calls.slice(0, 4))) expect(gap).to.be.at.least(950);
    });
  }

  it("ends the job with a FAILED result on the consumer's last delivery, whatever GitHub asks", async () => {
    g.double.script(PULL, pullState, Infinity);
    g.double.script(MERGE, tooManyRequests(1), Infinity);
    const { result, deliveries, maxDeliver } = await run(newRunId("merge"));
    expect(result.outcome).to.equal(MergeOutcome.FAILED, result.message);
    expect(maxDeliver).to.equal(CONSUMERS.maxDeliver + CONSUMERS.githubWaitDeliveries);
    expect(deliveries).to.equal(maxDeliver);
    expect(g.double.calls(MERGE).map((c) => c.pathParams.pull_number)).to.deep.equal([
      "1",
      "1",
      "1",
      "1",
      "1",
    ]);
  });

  it("reports the PRs that landed when GitHub merged #1 and refused #2, rather than failing the merge", async () => {
    g.double.script(PULL, pullState, Infinity);
    g.refuseSecond();
    const { result, deliveries } = await run(newRunId("merge"));
    expect(deliveries).to.equal(1);
    expect(result.outcome).to.equal(MergeOutcome.TARGET_MOVED);
    expect(result.mergedPrNumbers).to.deep.equal([1]);
    const mergedSha = (merged(1)?.responseBody as { sha: string }).sha;
    expect(result.landedShas).to.deep.equal([mergedSha]);
    expect(result.newTargetSha).to.equal(mergedSha);
    expect(result.message).to.match(/merged #1 through the GitHub API, then #2 was refused.*not mergeable/);
  });

  it("waits out a rate limit on #2 after #1 merged, and the redelivery merges only #2", async () => {
    g.double.script(PULL, pullState, Infinity);
    g.double.script(MERGE, (r) => (r.pathParams.pull_number === "2" ? tooManyRequests(1) : undefined), 1);
    const { result, deliveries } = await run(newRunId("merge"));
    expect(result.outcome).to.equal(MergeOutcome.MERGED, result.message);
    expect(deliveries).to.equal(2);
    const calls = g.double.calls(MERGE);
    expect(calls.map((c) => c.pathParams.pull_number)).to.deep.equal(["1", "2", "2"]);
    expect(gaps(calls.slice(1))[0]).to.be.at.least(950);
  });
});

describe("GitHub's waits: a job's patience", () => {
  it("stops waiting once the job is older than its patience (it is then a failure like any other)", () => {
    const waits = new GitHubWaits(3);
    const limit = new GitHubRetryableError("GitHub rate limit", 429, 90_000);
    const now = new Date();
    const young = waits.waitFor("m", limit, 1, 2, new Date(now.getTime() - 60_000), now);
    expect(young?.retryAfterMs).to.equal(90_000);
    const old = new Date(now.getTime() - GITHUB_PATIENCE_MS);
    expect(waits.waitFor("m", limit, 2, 2, old, now)).to.equal(undefined);
    expect(waits.isLastDelivery(5, 2)).to.equal(true);
    expect(waits.isLastDelivery(4, 2)).to.equal(false);
  });
});
