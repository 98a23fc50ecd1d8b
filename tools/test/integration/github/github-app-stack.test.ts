import { expect } from "chai";
import { eventually, git } from "@mainline/testing";
import { GitHubAppSystem, repo } from "./github-app-system.js";
import { checkSuiteCompleted } from "./github-ci-deliveries.js";

/**
 * Issue 28 through the GitHub App, GitHub played by the double (every request checked against GitHub's OpenAPI
 * description): a stack of two PRs on a real local remote, `/svc merge` on the top one, one green check suite, and
 * both merged through GitHub's merge API, the top one first retargeted onto the target (GitHub merges a PR into its
 * base, which was the head branch of the PR under it).
 */
describe("GitHub App end to end: a stacked PR queues the PR below it, both land, the top one retargeted", function () {
  this.timeout(240_000);
  let system: GitHubAppSystem;

  before(async () => {
    system = await GitHubAppSystem.start();
  });

  after(async () => {
    await system?.stop();
  });

  it("/svc merge on the top of a stack tests the two in one run and merges both, bottom first", async () => {
    const { double, remote } = system;
    await system.queueOnNewBranch("stacked", { mergeMethod: "SQUASH" });
    // #31 on the target, #32 on #31's head branch: #32's branch holds #31's commit.
    const bottom = await system.pushPullRequest(31, "stacked");
    const top = await system.pushPullRequest(32, "feature-31");
    expect(git(remote, "merge-base", "--is-ancestor", bottom, top)).to.equal("");
    // #33 sits on #32 and is not queued: once the stack under it lands it is moved onto the target.
    await system.pushPullRequest(33, "feature-32");
    await system.deliver("pull_request", system.pullRequestOpened(31, "stacked"));
    await system.deliver("pull_request", system.pullRequestOpened(32, "feature-31"));
    await system.deliver("pull_request", system.pullRequestOpened(33, "feature-32"));
    // GitHub's answers about these PRs: their branches, and which open PR is based on which branch.
    const bases: Record<string, string> = { "31": "stacked", "32": "feature-31", "33": "feature-32" };
    double.script(
      "GET /repos/{owner}/{repo}/pulls/{pull_number}",
      (r) => {
        const n = r.pathParams.pull_number!;
        if (bases[n] === undefined) return undefined;
        const pr = { state: "open", merged: false, head: { ref: `feature-${n}` }, base: { ref: bases[n] } };
        return { status: 200, body: { number: Number(n), ...pr } };
      },
      Infinity,
    );
    double.script(
      "GET /repos/{owner}/{repo}/pulls",
      (r) => {
        const on32 = [{ number: 33, head: { ref: "feature-33" }, base: { ref: "feature-32" } }];
        return { status: 200, body: r.query.get("base") === "feature-32" ? on32 : [] };
      },
      Infinity,
    );
    const command = await system.deliver("issue_comment", system.mergeComment(32));
    expect(command.outcome, JSON.stringify(command)).to.equal("applied");

    const run = await system.testBranchOf("stacked", 32);
    expect((await system.testBranchOf("stacked", 31)).testRunId, "tested in one run").to.equal(run.testRunId);
    const shown = await system.call("/getSubmittedPullRequest", {
      repo,
      targetBranch: "stacked",
      pr: { number: 32 },
    });
    expect(shown.stack).to.deep.equal({ below: [31], above: [] });
    await system.deliver("check_suite", checkSuiteCompleted(run.testBranch, run.testBranchSha, "success"));

    await eventually(async () => {
      expect(await system.stateOf("stacked", 31)).to.equal("MERGED");
      expect(await system.stateOf("stacked", 32)).to.equal("MERGED");
    }, 60_000);
    const merges = double.calls("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge");
    expect(merges.map((m) => m.pathParams.pull_number)).to.deep.equal(["31", "32"]);
    const retargets = double.calls("PATCH /repos/{owner}/{repo}/pulls/{pull_number}");
    expect(retargets.map((r) => [r.pathParams.pull_number, r.body])).to.deep.equal([
      ["32", { base: "stacked" }],
      ["33", { base: "stacked" }],
    ]);
    expect(retargets[1]!.seq, "#33 moved once the stack under it landed").to.be.greaterThan(merges[1]!.seq);
    expect(retargets[0]!.seq, "retargeted after #31 merged, before #32 is").to.be.within(
      merges[0]!.seq,
      merges[1]!.seq,
    );
    // Each PR of the stack has its check run, ending in success.
    for (const [n, head] of [
      [31, bottom],
      [32, top],
    ] as const) {
      await eventually(
        () => expect(system.talkBack(n, head).at(-1)).to.equal("check completed/success"),
        30_000,
      );
    }
    double.clearScripts();
    double.assertNoViolations();
  });

  it("a MERGE_COMMIT queue moves the stacked PR onto the target before the push, and lands the stack by fast-forward", async () => {
    const { double, remote } = system;
    await system.queueOnNewBranch("stacked-ff", { mergeMethod: "MERGE_COMMIT" });
    const bottom = await system.pushPullRequest(41, "stacked-ff");
    const top = await system.pushPullRequest(42, "feature-41");
    await system.deliver("pull_request", system.pullRequestOpened(41, "stacked-ff"));
    await system.deliver("pull_request", system.pullRequestOpened(42, "feature-41"));
    expect((await system.deliver("issue_comment", system.mergeComment(42))).outcome).to.equal("applied");
    const run = await system.testBranchOf("stacked-ff", 42);
    await system.deliver("check_suite", checkSuiteCompleted(run.testBranch, run.testBranchSha, "success"));
    await eventually(async () => {
      expect(await system.stateOf("stacked-ff", 41)).to.equal("MERGED");
      expect(await system.stateOf("stacked-ff", 42)).to.equal("MERGED");
    }, 60_000);
    for (const head of [bottom, top])
      expect(git(remote, "merge-base", "--is-ancestor", head, "refs/heads/stacked-ff")).to.equal("");
    const retargets = double
      .calls("PATCH /repos/{owner}/{repo}/pulls/{pull_number}")
      .filter((r) => (r.body as { base?: string }).base === "stacked-ff");
    expect(retargets.map((r) => r.pathParams.pull_number)).to.deep.equal(["42"]);
    const merges = double
      .calls("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge")
      .filter((r) => ["41", "42"].includes(r.pathParams.pull_number ?? ""));
    expect(merges, "landed by git, not GitHub's merge API").to.deep.equal([]);
    double.assertNoViolations();
  });
});
