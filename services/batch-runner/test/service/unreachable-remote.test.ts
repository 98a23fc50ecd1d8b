import { expect } from "chai";
import { TestRunOutcome } from "@mainline/proto/queue";
import { BatchRunnerFixture, externalRunner, newRunId } from "./batch-runner-fixture.js";

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
