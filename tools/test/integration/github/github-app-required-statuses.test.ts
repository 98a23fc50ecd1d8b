import { expect } from "chai";
import { eventually } from "@mainline/testing";
import { GitHubAppSystem, repo } from "./github-app-system.js";
import { actionsSuite, checkRun, commitStatusOf, workflowRun } from "./github-ci-deliveries.js";

/**
 * A queue's requiredStatuses, end to end with every Mainline part real and GitHub played by the double: the CI
 * deliveries GitHub makes for a PR's test branch (commit statuses, check runs, workflow runs, Actions' check
 * suites) pass or fail its run.
 */
describe("GitHub App end to end: requiredStatuses decide from check_run, status and workflow_run deliveries on the test branch", function () {
  this.timeout(240_000);
  let system: GitHubAppSystem;

  before(async () => {
    system = await GitHubAppSystem.start();
    await system.queueOnNewBranch("ci", {
      mergeMethod: "MERGE_COMMIT",
      requiredStatuses: ["ci/build", "lint", "Tests"],
    });
  });

  after(async () => {
    await system?.stop();
  });

  it("passes the run once the required commit status, check run and workflow run all succeeded, whatever else failed", async () => {
    const { testBranch, testBranchSha: sha } = await system.openPullRequest(11, "ci");
    const status = await system.deliver("status", commitStatusOf(testBranch, sha, "ci/build", "success"));
    expect(status.outcome, status.reason).to.equal("applied");
    expect(status.reason).to.match(/recorded: waiting for lint, Tests$/);
    expect((await system.deliver("check_run", checkRun(testBranch, sha, "lint", null))).reason).to.match(
      /waiting for lint, Tests$/,
    );
    expect((await system.deliver("check_run", checkRun(testBranch, sha, "lint", "success"))).reason).to.match(
      /waiting for Tests$/,
    );
    // A context nobody requires fails: it decides nothing.
    const optional = await system.deliver("check_run", checkRun(testBranch, sha, "docs", "failure"));
    expect(optional.reason).to.match(/recorded: waiting for Tests$/);
    expect(
      (await system.deliver("workflow_run", workflowRun(testBranch, sha, "Tests", 901, null))).reason,
    ).to.match(/waiting for Tests$/);
    expect(await system.stateOf("ci", 11)).to.equal("TESTING");
    const done = await system.deliver("workflow_run", workflowRun(testBranch, sha, "Tests", 901, "success"));
    expect(done.reason).to.match(/passed: every required status succeeded/);
    await eventually(async () => expect(await system.stateOf("ci", 11)).to.equal("MERGED"), 60_000);
    const details = await system.call("/getSubmittedPullRequest", {
      repo,
      targetBranch: "ci",
      pr: { number: 11 },
    });
    expect(details.state).to.equal("MERGED");
    system.double.assertNoViolations();
  });

  it("fails the run at once when a required check run fails, and when a required commit status errors", async () => {
    const first = await system.openPullRequest(12, "ci");
    await system.deliver(
      "status",
      commitStatusOf(first.testBranch, first.testBranchSha, "ci/build", "success"),
    );
    const red = await system.deliver(
      "check_run",
      checkRun(first.testBranch, first.testBranchSha, "lint", "timed_out"),
    );
    expect(red.reason).to.match(/failed: lint failed/);
    await eventually(async () => expect(await system.stateOf("ci", 12)).to.equal("FAILED"), 60_000);

    const second = await system.openPullRequest(13, "ci");
    const error = await system.deliver(
      "status",
      commitStatusOf(second.testBranch, second.testBranchSha, "ci/build", "error"),
    );
    expect(error.reason).to.match(/failed: ci\/build failed/);
    await eventually(async () => expect(await system.stateOf("ci", 13)).to.equal("FAILED"), 60_000);

    const third = await system.openPullRequest(14, "ci");
    const cancelled = await system.deliver(
      "workflow_run",
      workflowRun(third.testBranch, third.testBranchSha, "Tests", 902, "cancelled"),
    );
    expect(cancelled.reason).to.match(/failed: Tests failed/);
    await eventually(async () => expect(await system.stateOf("ci", 14)).to.equal("FAILED"), 60_000);
    system.double.assertNoViolations();
  });

  it("tells GitHub Actions' check suites apart: a required \"GitHub Actions\" waits for every workflow's suite", async () => {
    await system.call("/updateQueue", { repo, targetBranch: "ci", requiredStatuses: ["GitHub Actions"] });
    const { testBranch, testBranchSha: sha, testRunId } = await system.openPullRequest(15, "ci");
    // Two workflows start, each in its own check suite of the one App.
    await system.deliver("workflow_run", workflowRun(testBranch, sha, "Lint", 1001, null));
    await system.deliver("workflow_run", workflowRun(testBranch, sha, "Tests", 1002, null));
    // Lint's suite completes: named by the App alone, it stood for the whole App and passed the run.
    const lint = await system.deliver("check_suite", actionsSuite(testBranch, sha, 1001, "success"));
    expect(lint.reason).to.match(/recorded: waiting for GitHub Actions$/);
    expect(await system.stateOf("ci", 15)).to.equal("TESTING");
    const tests = await system.deliver("check_suite", actionsSuite(testBranch, sha, 1002, "failure"));
    expect(tests.reason).to.match(/failed: GitHub Actions failed/);
    await eventually(async () => expect(await system.stateOf("ci", 15)).to.equal("FAILED"), 60_000);
    const details = await system.call("/getMergeQueueTestingDetails", {
      repo,
      targetBranch: "ci",
      testRunId,
    });
    expect(JSON.stringify(details)).to.contain("GitHub Actions (check suite 1002)");
    system.double.assertNoViolations();
  });
});
