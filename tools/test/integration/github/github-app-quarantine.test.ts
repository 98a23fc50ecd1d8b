import { expect } from "chai";
import { eventually } from "@mainline/testing";
import { callUnary } from "@mainline/kit/grpc/index";
import { testId } from "@mainline/junit";
import { ResultContext } from "@mainline/proto/flaky";
import { GitHubAppSystem, repo } from "./github-app-system.js";

const TARGET = "quarantine";

/** A JUnit report of the repository's suite "shop": each named test passes or fails. */
const junit = (cases: Record<string, "pass" | "fail">) =>
  `<testsuite name="shop">${Object.entries(cases)
    .map(([name, r]) =>
      r === "fail"
        ? `<testcase classname="shop" name="${name}"><failure message="no"/></testcase>`
        : `<testcase classname="shop" name="${name}"/>`,
    )
    .join("")}</testsuite>`;

/**
 * Issue 26 on the GitHub App path, every Mainline part real (flaky-analytics included) and GitHub played by the
 * double: a batch's CI fails only on quarantined tests, the batch merges, and each PR's check run says which
 * failures were ignored.
 */
interface CheckRunBody {
  status?: string;
  conclusion?: string;
  output?: { title?: string; summary?: string };
}

describe("GitHub App end to end: a run failing only on quarantined tests merges, and the check run says so", function () {
  this.timeout(240_000);
  let system: GitHubAppSystem;

  before(async () => {
    system = await GitHubAppSystem.start({ flakyAnalytics: true });
    const flaky = system.flaky!;
    // The target's own CI ran the suite twice on one commit: "flaky" failed, then passed (a known flake).
    for (const flakyResult of ["fail", "pass"] as const) {
      await callUnary(flaky.client.uploadTestResults.bind(flaky.client), {
        org: "acme",
        repo,
        commitSha: "f".repeat(40),
        branch: "main",
        variant: "",
        jobName: "ci",
        runStartedAt: new Date(Date.now() - (flakyResult === "fail" ? 60_000 : 30_000)),
        context: ResultContext.CI,
        junitXml: [junit({ checkout: "pass", payments: "pass", stable: "pass", flaky: flakyResult })],
        impactedPrNumbers: [],
      });
    }
    const id = (name: string) => testId({ org: "acme", repo, classname: "shop", parent: "shop", name });
    await flaky.quarantine("acme", repo, [id("checkout"), id("payments")]);
    await system.queueOnNewBranch(TARGET, { mergeMethod: "MERGE_COMMIT", batch: true, batchingMinSize: 2 });
  });

  /** PRs opened and `/svc merge`d together: their heads and the one run testing them as a batch. */
  const openBatch = async (...numbers: number[]) => {
    const heads = new Map<number, string>();
    for (const n of numbers) {
      heads.set(n, await system.pushPullRequest(n, TARGET));
      expect((await system.deliver("pull_request", system.pullRequestOpened(n, TARGET))).outcome).to.equal(
        "applied",
      );
      expect((await system.deliver("issue_comment", system.mergeComment(n))).outcome).to.equal("applied");
    }
    const run = await system.testBranchOf(TARGET, numbers.at(-1)!);
    for (const n of numbers.slice(0, -1)) {
      expect((await system.testBranchOf(TARGET, n)).testRunId, "tested together").to.equal(run.testRunId);
    }
    return { heads, run };
  };

  /** The updates of the check run Mainline made for a PR's head, in order. */
  const checkRunUpdates = (head: string): CheckRunBody[] => {
    const ids = new Set(
      system.double
        .calls("checks/create")
        .filter((r) => (r.body as { head_sha?: string }).head_sha === head)
        .map((r) => String((r.responseBody as { id: number }).id)),
    );
    return system.double
      .calls("checks/update")
      .filter((r) => ids.has(r.pathParams.check_run_id ?? ""))
      .map((r) => r.body as CheckRunBody);
  };

  after(async () => {
    await system?.stop();
  });

  it("merges the batch and lists the ignored quarantined tests on each PR's check run", async () => {
    const { heads, run } = await openBatch(31, 32);

    // The CI of the test branch fails, on the two quarantined tests only, and says so with its JUnit.
    await system.call("/reportTestRun", {
      testRunId: run.testRunId,
      passed: false,
      junit: [junit({ checkout: "fail", payments: "fail", stable: "pass" })],
    });

    const ignored = "passed; failures ignored: quarantined tests shop › checkout, shop › payments";
    for (const n of [31, 32]) {
      await eventually(async () => expect(await system.stateOf(TARGET, n)).to.equal("MERGED"), 60_000);
      const pr = await system.call("/getSubmittedPullRequest", {
        repo,
        targetBranch: TARGET,
        pr: { number: n },
      });
      expect((pr.history as { detail?: string }[]).map((h) => h.detail)).to.include(ignored);
      const head = heads.get(n)!;
      await eventually(() => {
        expect(system.talkBack(n, head).at(-1)).to.equal("check completed/success");
        const last = checkRunUpdates(head).at(-1);
        expect(last?.conclusion).to.equal("success");
        expect(last?.output?.summary).to.include(`\n\n- ${ignored}`);
      }, 30_000);
    }
    system.double.assertNoViolations();
  });

  it("retries a run that failed only on a known flaky test once, merges, and the check run tells how the retry ended", async () => {
    const { heads, run: batch } = await openBatch(35, 36);
    const head = heads.get(36)!;
    await system.call("/reportTestRun", {
      testRunId: batch.testRunId,
      passed: false,
      junit: [junit({ checkout: "pass", payments: "pass", stable: "pass", flaky: "fail" })],
    });
    // The same PRs are tested once more, in a new run; the check run is testing again, not failed.
    let retry = batch;
    await eventually(async () => {
      retry = await system.testBranchOf(TARGET, 36);
      expect(retry.testRunId).to.not.equal(batch.testRunId);
    }, 60_000);
    await eventually(() => expect(checkRunUpdates(head).at(-1)?.status).to.equal("in_progress"), 30_000);
    expect(checkRunUpdates(head).some((u) => u.conclusion === "failure")).to.equal(false);
    await system.call("/reportTestRun", { testRunId: retry.testRunId, passed: true });
    await eventually(async () => expect(await system.stateOf(TARGET, 36)).to.equal("MERGED"), 60_000);
    const pr = await system.call("/getSubmittedPullRequest", {
      repo,
      targetBranch: TARGET,
      pr: { number: 36 },
    });
    expect((pr.history as { detail?: string }[]).map((h) => h.detail)).to.include(
      "known flaky tests failed: shop › flaky; retrying once in place",
    );
    // The check run quotes the notes of the PR's latest run: the retry and how it ended.
    await eventually(() => {
      const done = checkRunUpdates(head).at(-1);
      expect(done?.conclusion).to.equal("success");
      expect(done?.output?.summary).to.match(/- retry after known flaky tests shop › flaky failed: passed/);
    }, 30_000);
    system.double.assertNoViolations();
  });
});
