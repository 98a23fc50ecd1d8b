import { expect } from "chai";
import { publish } from "@mainline/kit/bus/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { ResultContext, TestStatus, UploadTestResultsRequest } from "@mainline/proto/flaky";
import { TEST_RESULTS_DURABLE } from "../../src/bus/test-results-consumer.js";
import { FlakyFixture, junitFixture, REPO, surefireReport, T0 } from "./flaky-fixture.js";

describe("flaky-analytics over JetStream: the merge queue's own results", () => {
  let svc: FlakyFixture;

  before(async () => {
    svc = await FlakyFixture.start();
  });
  after(() => svc.stop());

  const mergeQueueRun = (
    org: string,
    uploadId: string,
    junitXml: string[],
    context = ResultContext.MERGE_QUEUE,
  ) =>
    UploadTestResultsRequest.fromPartial({
      org,
      repo: REPO,
      commitSha: "d".repeat(40),
      branch: "mainline/test/7",
      prNumber: 7,
      runStartedAt: new Date(T0),
      context,
      junitXml,
      uploadId,
    });

  /** Waits until the consumer has handled (acked or terminated) everything published so far. */
  async function drained(): Promise<void> {
    const jsm = await svc.nc.jetstreamManager();
    for (let i = 0; i < 200; i++) {
      const info = await jsm.consumers.info(STREAMS.jobs.name, TEST_RESULTS_DURABLE);
      if (info.num_pending === 0 && info.num_ack_pending === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("the test-results consumer did not drain");
  }

  it("ingests a test run once, however often the message arrives", async () => {
    const js = svc.nc.jetstream();
    const run = mergeQueueRun("mq", "test-run-1", [surefireReport(4, (i) => i < 2)]);
    // Two messages with the same upload (a republish after a crash gets a new Nats-Msg-Id).
    await publish(js, SUBJECTS.testResults, UploadTestResultsRequest, run, { msgId: "results:test-run-1:a" });
    await publish(js, SUBJECTS.testResults, UploadTestResultsRequest, run, { msgId: "results:test-run-1:b" });
    await drained();
    const passing = mergeQueueRun("mq", "test-run-2", [surefireReport(4, () => false)]);
    await publish(js, SUBJECTS.testResults, UploadTestResultsRequest, passing, {
      msgId: "results:test-run-2",
    });
    await drained();

    const { tests } = await svc.list({ org: "mq", orgUrlSlug: "mq" });
    expect(tests.map((t) => t.name).sort()).to.deep.equal(["test000", "test001"]);
    // One failed and one passed run each: 1/2, not 2/3.
    for (const test of tests) expect(test.failureRateLast7d).to.equal(0.5);
    // Merge-queue failures are never a flakiness signal (spec rule 15).
    for (const test of tests) expect(test.status?.value).to.equal(TestStatus.HEALTHY);
  });

  it("counts every PR of a failed merge-queue batch as impacted, not none", async () => {
    const js = svc.nc.jetstream();
    // A batch of PRs 3 and 4: the batch-runner names no single PR, but lists the batch's.
    const batch = UploadTestResultsRequest.fromPartial({
      ...mergeQueueRun("batch", "batch-run-1", [surefireReport(2, (i) => i === 0)]),
      prNumber: undefined,
      impactedPrNumbers: [3, 4],
    });
    await publish(js, SUBJECTS.testResults, UploadTestResultsRequest, batch, {
      msgId: "results:batch-run-1",
    });
    await drained();
    const { tests } = await svc.list({ org: "batch", orgUrlSlug: "batch" });
    expect(tests.map((t) => [t.name, t.pullRequestsImpactedLast7d])).to.deep.equal([["test000", 2]]);
  });

  it("never counts bisection runs as flakiness data", async () => {
    const js = svc.nc.jetstream();
    const run = mergeQueueRun(
      "bisect",
      "bisection-1",
      [junitFixture("gotestsum-reruns.xml")],
      ResultContext.BISECTION,
    );
    await publish(js, SUBJECTS.testResults, UploadTestResultsRequest, run, { msgId: "results:bisection-1" });
    await drained();
    expect((await svc.list({ org: "bisect", orgUrlSlug: "bisect" })).tests).to.have.length(0);
  });

  it("terminates a message with malformed XML instead of retrying it, storing nothing", async () => {
    const js = svc.nc.jetstream();
    const run = mergeQueueRun("broken", "bad-1", [surefireReport(2, () => true), "<testsuite><testcase"]);
    await publish(js, SUBJECTS.testResults, UploadTestResultsRequest, run, { msgId: "results:bad-1" });
    await drained();
    expect((await svc.list({ org: "broken", orgUrlSlug: "broken" })).tests).to.have.length(0);
  });
});
