import { expect } from "chai";
import { ResultContext } from "@mainline/proto/flaky";
import { TestRunOutputs } from "@mainline/kit/streams/index";
import { RunnerKind, TestRunKind, TestRunOutcome } from "@mainline/proto/queue";
import { testId } from "@mainline/junit";
import { RemoteFixture } from "../git/remote-fixture.js";
import { BatchRunnerFixture, commandRunner, newRunId, QUEUE } from "./batch-runner-fixture.js";

const FAILING_JUNIT =
  '<testsuite name="app" tests="2" failures="1">' +
  '<testcase classname="app" name="adds"/>' +
  '<testcase classname="app" name="divides"><failure message="boom">expected 2</failure></testcase>' +
  "</testsuite>";

describe("batch-runner: test-run jobs", () => {
  let service: BatchRunnerFixture;
  let fx: RemoteFixture;

  before(async () => {
    service = await BatchRunnerFixture.start();
  });
  after(() => service.stop());

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    await fx.openPullRequest(2, [{ files: { "two.txt": "2\n" }, message: "Two" }]);
  });
  afterEach(() => fx.dispose());

  it("pushes the projected branch, runs the command in it and reports PASSED", async () => {
    const runId = newRunId("pass");
    const mainSha = await fx.remoteSha("refs/heads/main");
    await service.publishTestRunJob(
      service.testRunJob(
        fx,
        runId,
        [{ number: 1, underTest: false }, { number: 2 }],
        // Both PRs' files are in the worktree: the dependent PR is applied before the one under test.
        commandRunner("test -f one.txt && test -f two.txt"),
      ),
    );

    const result = await service.testRunResults.first(runId);

    expect(result.outcome).to.equal(TestRunOutcome.PASSED, result.message);
    expect(result.queue).to.deep.equal(QUEUE);
    expect(result.testBranch).to.equal(`mainline/test/main/${runId}`);
    expect(await fx.remoteSha(`refs/heads/${result.testBranch}`)).to.equal(result.testBranchSha);
    expect(result.baseSha).to.equal(mainSha);
    const log = await fx.log(result.testBranch, 3);
    expect(log.map((c) => c.subject)).to.deep.equal(["Change 2 (#2)", "Change 1 (#1)", "Initial commit"]);
    expect(result.commits).to.deep.equal([
      { prNumber: 1, commitSha: log[1]!.sha },
      { prNumber: 2, commitSha: log[0]!.sha },
    ]);
    // The check links to the kept output, by the path the gateway serves it at.
    expect(result.statusChecks).to.deep.equal([
      { context: "mainline/test-command", url: `/v1/test-runs/${runId}/output`, state: "success" },
    ]);
    expect(result.startedAt!.getTime()).to.be.at.most(result.finishedAt!.getTime());
    // No failed tests to tell, nothing to ingest without JUnit, and nothing left behind in the replica's work dir.
    expect(result.failedTests).to.equal(undefined);
    expect(service.uploads.all(runId)).to.deep.equal([]);
    expect(await service.leftoverWorktrees()).to.deep.equal([]);
  });

  it("reports FAILED with the JUnit and the output, and sends the JUnit to flaky-analytics as MERGE_QUEUE", async () => {
    const runId = newRunId("fail");
    await service.publishTestRunJob(
      service.testRunJob(
        fx,
        runId,
        [{ number: 1 }],
        commandRunner(
          `mkdir -p reports && printf '%s' '${FAILING_JUNIT}' > reports/junit.xml && echo 'divides: expected 2' && exit 3`,
          ["reports/*.xml"],
        ),
      ),
    );

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.FAILED, result.message);
    expect(result.message).to.contain("exited with code 3").and.to.contain("divides: expected 2");
    expect(result.message).to.contain(`full output: /v1/test-runs/${runId}/output`);
    const outputs = await TestRunOutputs.open(service.js);
    expect(await outputs.read(runId)).to.contain("divides: expected 2");
    expect(result.junitXml).to.deep.equal([FAILING_JUNIT]);
    expect(result.statusChecks[0]!.state).to.equal("failure");
    // The coordinator learns which test failed, under the id flaky-analytics knows it by.
    const divides = testId({
      org: "acme",
      repo: QUEUE.repo,
      classname: "app",
      parent: "app",
      name: "divides",
    });
    expect(result.failedTests).to.deep.equal({
      tests: [{ id: divides, name: "app › divides" }],
      truncated: false,
    });

    const upload = await service.uploads.first(runId);
    expect(upload).to.deep.include({
      org: "acme",
      repo: QUEUE.repo,
      commitSha: result.testBranchSha,
      branch: result.testBranch,
      prNumber: 1,
      context: ResultContext.MERGE_QUEUE,
      junitXml: [FAILING_JUNIT],
      uploadId: runId,
    });
    expect(upload.runStartedAt).to.deep.equal(result.startedAt);
  });

  it("tags the JUnit of a bisection run BISECTION, never as merge-queue evidence", async () => {
    const runId = newRunId("bisect");
    await service.publishTestRunJob(
      service.testRunJob(
        fx,
        runId,
        [{ number: 1 }, { number: 2 }],
        commandRunner(`printf '%s' '${FAILING_JUNIT}' > junit.xml; exit 1`, ["junit.xml"]),
        { kind: TestRunKind.BISECTION },
      ),
    );

    const upload = await service.uploads.first(runId);
    expect(upload.context).to.equal(ResultContext.BISECTION);
    // A batch's results belong to no single PR, but a test failing there impacted each of its PRs.
    expect(upload.prNumber).to.equal(undefined);
    expect(upload.impactedPrNumbers).to.deep.equal([1, 2]);
  });

  it("reports MERGE_CONFLICT naming the PR that does not apply, and pushes nothing", async () => {
    await fx.openPullRequest(3, [{ files: { "src/app.txt": "line 1\nmine\nline 3\n" }, message: "Mine" }]);
    await fx.openPullRequest(4, [
      { files: { "src/app.txt": "line 1\ntheirs\nline 3\n" }, message: "Theirs" },
    ]);
    const runId = newRunId("conflict");
    await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 3, underTest: false }, { number: 4 }], commandRunner("true")),
    );

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.MERGE_CONFLICT, result.message);
    expect(result.conflictingPrNumber).to.equal(4);
    expect(result.message).to.contain("#4").and.to.contain("src/app.txt");
    expect(await fx.remoteBranches()).to.deep.equal(["main"]);
  });

  it("reports TIMED_OUT when the command outlives the queue's testing timeout", async () => {
    const runId = newRunId("slow");
    await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], commandRunner("sleep 30"), { timeoutSeconds: 1 }),
    );

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.TIMED_OUT, result.message);
    expect(result.message).to.contain("testing timeout of 1 s");
  });

  it("reports ERROR for a PR whose head is not on the remote", async () => {
    const runId = newRunId("missing");
    await service.publishTestRunJob(service.testRunJob(fx, runId, [{ number: 99 }], commandRunner("true")));

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.ERROR);
    expect(result.message).to.contain("#99");
  });

  it("answers a job it can never run with ERROR naming the field, then drops it", async () => {
    const runId = newRunId("bad");
    const seq = await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], {
        kind: RunnerKind.UNSPECIFIED,
        command: "",
        junitGlobs: [],
        env: {},
      }),
    );

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.ERROR);
    expect(result.message).to.contain("runner.kind");
    await service.jobSettled(seq);
    expect(await fx.remoteBranches()).to.deep.equal(["main"]);
  });

  it("handles a redelivered job without a second push or a second, different result", async () => {
    const runId = newRunId("again");
    const job = service.testRunJob(
      fx,
      runId,
      [{ number: 1 }, { number: 2 }],
      commandRunner("test -f two.txt"),
    );
    await service.publishTestRunJob(job);
    const first = await service.testRunResults.first(runId);
    const stored = await service.resultsStored();

    // A different msgId defeats the stream's de-duplication, as a coordinator re-publishing
    // after its own crash would.
    const seq = await service.publishTestRunJob(job, `test-run-job:${runId}:again`);
    await service.jobSettled(seq);

    expect(first.outcome).to.equal(TestRunOutcome.PASSED, first.message);
    expect(await fx.reflog(first.testBranch)).to.have.length(1);
    expect(await fx.remoteSha(`refs/heads/${first.testBranch}`)).to.equal(first.testBranchSha);
    // The result was published again under the run's msgId, which the stream stored once.
    expect(await service.resultsStored()).to.equal(stored);
    expect(service.testRunResults.all(runId)).to.have.length(1);
  });

  it("builds once when two deliveries of the same run race on two replicas", async () => {
    await service.addReplica();
    const runId = newRunId("race");
    const job = service.testRunJob(fx, runId, [{ number: 1 }, { number: 2 }], commandRunner("true"));
    await service.publishTestRunJob(job);
    const seq = await service.publishTestRunJob(job, `test-run-job:${runId}:again`);

    const result = await service.testRunResults.first(runId);
    await service.jobSettled(seq);

    expect(result.outcome).to.equal(TestRunOutcome.PASSED, result.message);
    expect(await fx.reflog(result.testBranch)).to.have.length(1);
    expect(await fx.remoteSha(`refs/heads/${result.testBranch}`)).to.equal(result.testBranchSha);
    expect(service.testRunResults.all(runId)).to.have.length(1);
  });
});
