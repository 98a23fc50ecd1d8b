import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { MergeMethod, RunnerKind, TestRunJob, TestRunKind } from "@mainline/proto/queue";
import { readTestRunJob } from "../../src/jobs/test-run-request.js";

const MAX_RUN_SECONDS = 3600;

function job(overrides: Partial<TestRunJob> = {}): TestRunJob {
  return TestRunJob.fromPartial({
    testRunId: "run-1",
    queue: {
      org: "acme",
      repo: { host: "git.example.com", owner: "acme", name: "app" },
      targetBranch: "main",
    },
    kind: TestRunKind.MAIN,
    pullRequests: [
      { number: 4, headSha: "a".repeat(40), title: "Ahead", underTest: false },
      { number: 7, headSha: "", title: "", underTest: true },
    ],
    mergeMethod: MergeMethod.REBASE,
    testBranch: "mq/tests/main/run-1",
    remoteUrl: "https://git.example.com/acme/app.git",
    runner: { kind: RunnerKind.COMMAND, command: "make test", junitGlobs: ["out/*.xml"] },
    timeoutSeconds: 600,
    ...overrides,
  });
}

function invalidField(overrides: Partial<TestRunJob>): string {
  try {
    readTestRunJob(job(overrides), MAX_RUN_SECONDS);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgumentError);
    return (error as InvalidArgumentError).field;
  }
  throw new Error("expected the job to be rejected");
}

describe("readTestRunJob", () => {
  it("translates a job into the projected branch and runner it asks for", () => {
    const request = readTestRunJob(job(), MAX_RUN_SECONDS);

    expect(request.projected).to.deep.equal({
      remoteUrl: "https://git.example.com/acme/app.git",
      targetBranch: "main",
      testRunId: "run-1",
      mergeMethod: "REBASE",
      pullRequests: [
        { number: 4, title: "Ahead", expectedHeadSha: "a".repeat(40), aheadOnly: true },
        { number: 7, title: "Pull request #7" },
      ],
      // The coordinator's branch name is honoured: its prefix is what the git module needs.
      testBranchPrefix: "mq/tests",
    });
    expect(request.runner).to.deep.equal({
      kind: "command",
      command: "make test",
      junitGlobs: ["out/*.xml"],
      env: {},
    });
    expect(request.timeoutMs).to.equal(600_000);
  });

  it("caps the timeout, and gives a run without one the cap rather than forever", () => {
    expect(readTestRunJob(job({ timeoutSeconds: 0 }), MAX_RUN_SECONDS).timeoutMs).to.equal(3_600_000);
    expect(readTestRunJob(job({ timeoutSeconds: 90_000 }), MAX_RUN_SECONDS).timeoutMs).to.equal(3_600_000);
  });

  it("uses the default test branch prefix when the job names no branch, and keeps an explicit base", () => {
    const request = readTestRunJob(job({ testBranch: "", baseSha: "b".repeat(40) }), MAX_RUN_SECONDS);
    expect(request.projected.testBranchPrefix).to.equal("mainline/test");
    expect(request.projected.baseSha).to.equal("b".repeat(40));
  });

  it("rejects jobs that can never run, naming the field", () => {
    expect(invalidField({ testRunId: "../etc" })).to.equal("testRunId");
    expect(invalidField({ queue: undefined })).to.equal("queue");
    expect(invalidField({ remoteUrl: "" })).to.equal("remoteUrl");
    expect(invalidField({ mergeMethod: MergeMethod.UNSPECIFIED })).to.equal("mergeMethod");
    expect(invalidField({ pullRequests: [] })).to.equal("pullRequests");
    expect(
      invalidField({ pullRequests: [{ number: 4, headSha: "", title: "t", author: "", underTest: false }] }),
    ).to.equal("pullRequests");
    expect(invalidField({ kind: TestRunKind.UNSPECIFIED })).to.equal("kind");
    expect(invalidField({ testBranch: "mq/tests/main/another-run" })).to.equal("testBranch");
    expect(invalidField({ runner: undefined })).to.equal("runner.kind");
    expect(
      invalidField({
        runner: { kind: RunnerKind.COMMAND, command: "make", junitGlobs: [], env: { A: "a\0b" } },
      }),
    ).to.equal("runner.env.A");
    expect(
      invalidField({ runner: { kind: RunnerKind.COMMAND, command: "  ", junitGlobs: [], env: {} } }),
    ).to.equal("runner.command");
  });
});
