import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "chai";
import { TestRunOutcome } from "@mainline/proto/queue";
import { RemoteFixture } from "../git/remote-fixture.js";
import { BatchRunnerFixture, externalRunner, newRunId } from "./batch-runner-fixture.js";

describe("batch-runner: replicas and shutdown", () => {
  let service: BatchRunnerFixture;
  let fx: RemoteFixture;

  beforeEach(async () => {
    service = await BatchRunnerFixture.start();
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
  });
  afterEach(async () => {
    await service.stop();
    await fx.dispose();
  });

  async function testBranchPushed(runId: string): Promise<void> {
    while ((await fx.remoteSha(`refs/heads/mainline/test/main/${runId}`)) === undefined) await sleep(20);
  }

  it("finishes a waiting run from a report that another replica took off the stream", async () => {
    const runId = newRunId("elsewhere");
    await service.publishTestRunJob(service.testRunJob(fx, runId, [{ number: 1 }], externalRunner));
    await testBranchPushed(runId);
    // The waiting replica stops taking messages (its run goes on), so only the new one can take the report.
    const waiting = service.runners[0]!;
    waiting.stopConsuming();
    await service.addReplica();
    await service.publishExternalReport({ testRunId: runId, passed: true });

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.PASSED, result.message);
  });

  it("hands a waiting run back on shutdown, and another replica finishes it", async () => {
    const runId = newRunId("handover");
    const seq = await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], externalRunner),
    );
    await testBranchPushed(runId);

    await service.runners[0]!.stop();
    await service.addReplica();
    await service.publishExternalReport({ testRunId: runId, passed: true });

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.PASSED, result.message);
    await service.jobSettled(seq);
    // The second replica reused the pushed branch.
    expect(await fx.reflog(result.testBranch)).to.have.length(1);
  });
});

describe("batch-runner: an unreachable remote", () => {
  let service: BatchRunnerFixture;

  before(async () => {
    // Two deliveries allowed, so the retry and the give-up both happen within a second or so.
    service = await BatchRunnerFixture.start({ ackWaitMs: 30_000, maxDeliver: 2 });
  });
  after(() => service.stop());

  it("retries the job with a delay, then reports ERROR instead of leaving the run hanging", async () => {
    const runId = newRunId("unreachable");
    const job = service.testRunJob(
      // Port 1 on the loopback refuses connections: the remote is down, not wrong.
      { url: "http://127.0.0.1:1/acme/app.git" },
      runId,
      [{ number: 1 }],
      externalRunner,
    );
    await service.publishTestRunJob(job);

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.ERROR);
    expect(result.message).to.contain("could not reach the remote").and.to.contain("after 2 attempts");
  });
});
