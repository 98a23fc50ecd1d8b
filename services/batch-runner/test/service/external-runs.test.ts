import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "chai";
import { TestRunOutcome } from "@mainline/proto/queue";
import { RemoteFixture } from "../git/remote-fixture.js";
import { BatchRunnerFixture, externalRunner, newRunId } from "./batch-runner-fixture.js";

const JUNIT = '<testsuite name="ci" tests="1"><testcase classname="ci" name="builds"/></testsuite>';

describe("batch-runner: external runs", () => {
  let service: BatchRunnerFixture;
  let fx: RemoteFixture;

  before(async () => {
    service = await BatchRunnerFixture.start();
    // Two replicas share the consumers: the report may reach the one that is not waiting.
    await service.addReplica();
  });
  after(() => service.stop());

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
  });
  afterEach(() => fx.dispose());

  /** The external CI starts once the test branch is pushed, as a real one would. */
  async function testBranchPushed(runId: string): Promise<void> {
    while ((await fx.remoteSha(`refs/heads/mainline/test/main/${runId}`)) === undefined) await sleep(20);
  }

  it("waits for the external CI's report and reports PASSED with its JUnit and link", async () => {
    const runId = newRunId("ext-pass");
    await service.publishTestRunJob(service.testRunJob(fx, runId, [{ number: 1 }], externalRunner));
    await testBranchPushed(runId);
    await service.publishExternalReport({
      testRunId: runId,
      passed: true,
      detailsUrl: "https://ci.example/builds/7",
      junitXml: [JUNIT],
    });

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.PASSED, result.message);
    expect(result.detailsUrl).to.equal("https://ci.example/builds/7");
    expect(result.junitXml).to.deep.equal([JUNIT]);
    expect(result.statusChecks).to.deep.equal([
      { context: "mainline/external-ci", url: "https://ci.example/builds/7", state: "success" },
    ]);
    expect((await service.uploads.first(runId)).junitXml).to.deep.equal([JUNIT]);
  });

  it("takes a report that arrived before the run started waiting", async () => {
    const runId = newRunId("ext-early");
    await service.publishExternalReport({ testRunId: runId, passed: false, message: "lint failed" });
    await service.publishTestRunJob(service.testRunJob(fx, runId, [{ number: 1 }], externalRunner));

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.FAILED, result.message);
    expect(result.message).to.contain("lint failed");
  });

  it("ignores a report on the run from another organisation", async () => {
    const runId = newRunId("ext-foreign");
    await service.publishExternalReport({ testRunId: runId, org: "intruder", passed: true });
    await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], externalRunner, { timeoutSeconds: 1 }),
    );

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.TIMED_OUT, result.message);
    expect(result.message).to.contain("no report from the external CI");
  });

  it("ends the wait at once when the run is cancelled: the branch is deleted, the slot freed, no result sent", async () => {
    const runId = newRunId("ext-cancel");
    const seq = await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], externalRunner),
    );
    await testBranchPushed(runId);
    const cancelledAt = Date.now();
    await service.publishCancellation(runId);

    await service.jobSettled(seq);
    expect(Date.now() - cancelledAt, "ms until the job's slot is free").to.be.below(5_000);
    expect(await fx.remoteSha(`refs/heads/mainline/test/main/${runId}`)).to.equal(undefined);
    // A late report changes nothing: nobody waits for it.
    await service.publishExternalReport({ testRunId: runId, passed: true });
    await sleep(300);
    expect(service.testRunResults.all(runId)).to.deep.equal([]);
  });

  it("skips a job whose run was cancelled before any replica took it", async () => {
    const runId = newRunId("ext-cancel-early");
    await service.publishCancellation(runId);
    const seq = await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], externalRunner),
    );

    await service.jobSettled(seq);
    expect(await fx.remoteBranches()).not.to.include(`mainline/test/main/${runId}`);
    expect(service.testRunResults.all(runId)).to.deep.equal([]);
  });
});
