import { expect } from "chai";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { branchMoves, eventually, git } from "@mainline/testing";
import { ACME, GitHubAppSystem, INSTALLATION, repo } from "./github-app-system.js";
import { checkSuiteCompleted, pushTo } from "./github-ci-deliveries.js";

/**
 * Issue 19 end to end, with every Mainline part real and GitHub played by the double (which checks each request
 * against GitHub's OpenAPI description): a PR on a real local git remote, `/svc merge` as a signed issue_comment,
 * a check_suite completed on the test branch, and the PR merged, its check run and comments seen in order.
 */
describe("GitHub App end to end: webhooks in, CI on the test branch, merge, check run and comments out", function () {
  this.timeout(240_000);
  let system: GitHubAppSystem;

  before(async () => {
    system = await GitHubAppSystem.start();
  });

  after(async () => {
    await system?.stop();
  });

  it("refuses /svc commands of commenters who are not the repository's owners, members or collaborators, and says so on the PR", async () => {
    const { double, gw, admin } = system;
    for (const [association, body] of [
      ["NONE", "/svc merge"],
      ["CONTRIBUTOR", "/svc cancel"],
      ["FIRST_TIME_CONTRIBUTOR", "/svc merge --priority=urgent"],
      [undefined, "/svc merge"],
    ] as const) {
      const p = system.mergeComment(9);
      p.comment.body = body;
      p.comment.user = { ...p.comment.user, login: "stranger" };
      if (association === undefined) delete p.comment.author_association;
      else p.comment.author_association = association;
      const answer = await system.deliver("issue_comment", p);
      expect(answer.outcome, String(association)).to.equal("refused");
      expect(answer.reply).to.match(
        new RegExp(
          `^@stranger, only the repository's owners.*\\(your association .* is ${association ?? "unknown"}\\)`,
        ),
      );
    }
    const pr = await gw.post(
      "/getSubmittedPullRequest",
      { repo, targetBranch: "main", pr: { number: 9 } },
      admin,
    );
    expect(pr.status, "nothing was submitted").to.equal(404);
    // The refusals are posted on the PR, once each.
    await eventually(() => {
      const refusals = double
        .calls("issues/create-comment")
        .filter((r) => r.pathParams.issue_number === "9")
        .map((r) => String((r.body as { body: string }).body));
      expect(refusals.filter((b) => b.startsWith("@stranger, only"))).to.have.length(4);
    }, 30_000);
    double.assertNoViolations();
  });

  it("merges a PR by git fast-forward after /svc merge and a green check suite on its test branch", async () => {
    const { remote, double } = system;
    await system.call("/createQueue", { repo, targetBranch: "main" });
    await system.call("/updateQueue", { repo, targetBranch: "main", mergeMethod: "MERGE_COMMIT" });
    const head = git(remote, "rev-parse", "refs/pull/1/head");
    expect((await system.deliver("pull_request", system.pullRequestOpened(1, "main"))).outcome).to.equal(
      "applied",
    );
    const command = await system.deliver("issue_comment", system.mergeComment(1));
    expect(command).to.include({
      outcome: "applied",
      reply: "#1 joined the merge queue of `main` (priority medium).",
    });

    const { testBranch, testBranchSha } = await system.testBranchOf("main", 1);
    expect(git(remote, "rev-parse", `refs/heads/${testBranch}`)).to.equal(testBranchSha);
    // CI of another commit, and a suite still running, decide nothing.
    expect(
      (await system.deliver("check_suite", checkSuiteCompleted(testBranch, "f".repeat(40), "success")))
        .outcome,
    ).to.equal("ignored");
    const green = await system.deliver(
      "check_suite",
      checkSuiteCompleted(testBranch, testBranchSha, "success"),
    );
    expect(green.outcome, green.reason).to.equal("applied");
    expect(green.reason).to.match(/passed/);

    await eventually(async () => expect(await system.stateOf("main", 1)).to.equal("MERGED"), 60_000);
    // The PR's own commit reached main (GitHub marks the PR merged), and main only ever moved forward.
    expect(git(remote, "merge-base", "--is-ancestor", head, "refs/heads/main")).to.equal("");
    expect(branchMoves(remote, "refs/heads/main")).to.deep.equal({ moves: 1, forced: [] });

    await eventually(() => {
      const seen = system.talkBack(1, head);
      // The check run follows the PR: queued, testing, merged; the reply to /svc merge is on the PR too.
      expect(seen[0]).to.equal("check queued");
      expect(seen).to.include("comment #1 joined the merge queue of `main` (priority medium).");
      expect(seen.indexOf("check in_progress")).to.be.greaterThan(0);
      expect(seen.at(-1)).to.equal("check completed/success");
    }, 30_000);
    // GitHub's push event for the queue's own merge restarts nothing.
    const mainHead = git(remote, "rev-parse", "refs/heads/main");
    const own = await system.deliver(
      "push",
      pushTo("main", git(remote, "rev-parse", "refs/heads/main~1"), mainHead),
    );
    expect(own).to.include({ outcome: "ignored" });
    expect(own.reason).to.match(/own tested commits|already recorded/);
    double.assertNoViolations();
  });

  it("merges a SQUASH queue's PR through GitHub's merge API with its tested head sha", async () => {
    const { remote, work, double } = system;
    await system.call("/createQueue", { repo, targetBranch: "release" });
    git(work, "push", "-q", "origin", "main:refs/heads/release");
    const head = git(remote, "rev-parse", "refs/pull/2/head");
    await system.deliver("pull_request", system.pullRequestOpened(2, "release"));
    expect((await system.deliver("issue_comment", system.mergeComment(2))).outcome).to.equal("applied");
    const { testBranch, testBranchSha } = await system.testBranchOf("release", 2);
    await system.deliver("check_suite", checkSuiteCompleted(testBranch, testBranchSha, "success"));

    await eventually(async () => expect(await system.stateOf("release", 2)).to.equal("MERGED"), 60_000);
    const merges = double.calls("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge");
    expect(merges).to.have.length(1);
    expect(merges[0]!.pathParams).to.include({ owner: ACME.owner, repo: ACME.name, pull_number: "2" });
    expect(merges[0]!.body).to.deep.include({
      sha: head,
      merge_method: "squash",
      commit_title: "Change 2 (#2)",
    });
    expect(merges[0]!.credential, "with the installation's token").to.equal(INSTALLATION);
    // GitHub then tells of the push its merge made: the queue's own, so nothing restarts.
    const mergedSha = (merges[0]!.responseBody as { sha: string }).sha;
    const own = await system.deliver("push", pushTo("release", testBranchSha, mergedSha));
    expect(own).to.include({ outcome: "ignored", reason: "this push was already recorded" });
    double.assertNoViolations();
  });

  it("marks merged the PRs GitHub merged when it refuses the next PR of the batch, and re-tests only that one", async () => {
    const { double } = system;
    await system.queueOnNewBranch("squash", { mergeMethod: "SQUASH", batch: true, batchingMinSize: 2 });
    double.script(
      "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge",
      (r) =>
        r.pathParams.pull_number === "22"
          ? { status: 405, body: { message: "Pull Request is not mergeable" } }
          : undefined,
      Infinity,
    );
    for (const n of [21, 22]) {
      await system.pushPullRequest(n, "squash");
      await system.deliver("pull_request", system.pullRequestOpened(n, "squash"));
      expect((await system.deliver("issue_comment", system.mergeComment(n))).outcome).to.equal("applied");
    }
    const batch = await system.testBranchOf("squash", 22);
    expect((await system.testBranchOf("squash", 21)).testRunId, "tested together").to.equal(batch.testRunId);
    await system.deliver(
      "check_suite",
      checkSuiteCompleted(batch.testBranch, batch.testBranchSha, "success"),
    );

    await eventually(async () => expect(await system.stateOf("squash", 21)).to.equal("MERGED"), 60_000);
    // #22 is tested again, on its own, in a new run.
    const again = await system.testBranchOf("squash", 22);
    expect(again.testRunId).to.not.equal(batch.testRunId);
    expect(await system.stateOf("squash", 22)).to.equal("TESTING");
    expect(
      double
        .calls("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge")
        .map((c) => c.pathParams.pull_number),
    ).to.include.members(["21", "22"]);
    double.clearScripts();
    double.assertNoViolations();
  });

  it("restarts the runs of a queue whose target moved outside it, once per pushed head", async () => {
    const { remote, work } = system;
    await system.call("/createQueue", { repo, targetBranch: "hotfix" });
    git(work, "fetch", "-q", "origin", "main");
    git(work, "push", "-q", "origin", "FETCH_HEAD:refs/heads/hotfix");
    await system.pushPullRequest(4, "hotfix");
    await system.deliver("pull_request", system.pullRequestOpened(4, "hotfix"));
    await system.deliver("issue_comment", system.mergeComment(4));
    const first = await system.testBranchOf("hotfix", 4);

    // Someone pushes to hotfix outside the queue: the run built on the old head is worthless.
    const before = git(remote, "rev-parse", "refs/heads/hotfix");
    git(work, "checkout", "-q", "-b", "outside", before);
    await writeFile(path.join(work, "outside.txt"), "pushed by hand\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "Outside the queue");
    git(work, "push", "-q", "origin", "HEAD:refs/heads/hotfix");
    const after = git(remote, "rev-parse", "refs/heads/hotfix");
    const push = pushTo("hotfix", before, after);
    const moved = await system.deliver("push", push);
    expect(moved).to.include({ outcome: "applied" });
    expect(moved.reason).to.match(/moved outside the queue/);
    expect((await system.deliver("push", push)).reason, "a second delivery of the same push").to.equal(
      "this push was already recorded",
    );
    // A new run, built on the new head.
    let second = first;
    await eventually(async () => {
      second = await system.testBranchOf("hotfix", 4);
      expect(second.testBranchSha).to.not.equal(first.testBranchSha);
    }, 60_000);
    expect(git(remote, "merge-base", "--is-ancestor", after, second.testBranchSha)).to.equal("");
  });

  it("fails the PR when the check suite on its test branch fails, and says why on the PR", async () => {
    await system.call("/updateQueue", { repo, targetBranch: "main", mergeMethod: "MERGE_COMMIT" });
    const head = await system.pushPullRequest(3, "main");
    await system.deliver("pull_request", system.pullRequestOpened(3, "main"));
    await system.deliver("issue_comment", system.mergeComment(3));
    const { testBranch, testBranchSha } = await system.testBranchOf("main", 3);
    const red = await system.deliver(
      "check_suite",
      checkSuiteCompleted(testBranch, testBranchSha, "failure"),
    );
    expect(red.reason).to.match(/failed/);
    await eventually(async () => expect(await system.stateOf("main", 3)).to.equal("FAILED"), 60_000);
    await eventually(() => {
      const seen = system.talkBack(3, head);
      expect(seen[0]).to.equal("check queued");
      expect(seen.indexOf("check completed/failure")).to.be.greaterThan(seen.indexOf("check in_progress"));
      expect(seen.at(-1)).to.match(/^comment \*\*Mainline removed this pull request .*its tests failed/);
    }, 30_000);
    system.double.assertNoViolations();
  });
});
