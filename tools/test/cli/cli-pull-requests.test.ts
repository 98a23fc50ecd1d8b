import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "@mainline/testing";
import { MainlineFixture } from "./mainline-fixture.js";

const REPO = "git.example.com/acme/app";

describe("mainline CLI: pull requests over the real HTTP API", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;
  const mainline = (...argv: string[]) => system.run(argv);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-"));
    system = await MainlineFixture.start(dir);
    // The queue as the queue commands' tests leave it (cli-commands.test.ts).
    const created = await mainline("queue", "create", "--repo", REPO, "--concurrency", "2");
    expect(created.code, created.stderr).to.equal(0);
    const updated = await mainline(
      "queue",
      "update",
      "--repo",
      REPO,
      "--batching-min-size",
      "3",
      "--pending-failure-depth",
      "2",
    );
    expect(updated.code, updated.stderr).to.equal(0);
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("announces a PR with pr event, submits it, shows it by number and by branch, and cancels it", async () => {
    const sha = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
    const event = await mainline(
      "pr",
      "event",
      "opened",
      "7",
      "--repo",
      REPO,
      "--head",
      "feature/login",
      "--sha",
      sha,
      "--title",
      "Add login",
    );
    expect(event.code, event.stderr).to.equal(0);
    expect(event.stdout.trim()).to.equal("PR #7 opened: feature/login at a1b2c3d4e5f6 → main");

    // The queue has no git connection, so the PR waits in the queue: status shows where it is.
    await mainline("queue", "pause", "--repo", REPO);
    const submitted = await mainline("submit", "7", "--repo", REPO, "--priority", "high");
    expect(submitted.code, submitted.stderr).to.equal(0);
    expect(submitted.stdout.trim()).to.equal("Submitted PR #7 to git.example.com/acme/app → main");

    const byNumber = await mainline("status", "#7", "--repo", REPO);
    expect(byNumber.code, byNumber.stderr).to.equal(0);
    expect(byNumber.stdout).to.match(/^PR #7 (PENDING|NOT_READY)\b.*: Add login\n/);
    expect(byNumber.stdout).to.include("priority high");
    expect(byNumber.stdout).to.include("in the queue");

    const byBranch = await mainline("status", "feature/login", "--repo", REPO, "--json");
    expect(byBranch.code, byBranch.stderr).to.equal(0);
    expect(JSON.parse(byBranch.stdout)).to.include({
      prNumber: 7,
      prTitle: "Add login",
      prSha: sha,
      isCurrentlySubmittedToQueue: true,
    });

    const raised = await mainline("priority", "7", "urgent", "--repo", REPO);
    expect(raised.code, raised.stderr).to.equal(0);
    expect(raised.stdout.trim()).to.equal("PR #7 now has priority urgent");
    const shown = await mainline("status", "7", "--repo", REPO);
    expect(shown.stdout).to.match(/priority high → urgent at \S+ by token:\S+/);
    const numbered = await mainline("--json", "priority", "7", "42", "--repo", REPO);
    expect(JSON.parse(numbered.stdout)).to.deep.equal({ pr: 7, priorityValue: 42, priorityName: "" });
    const typo = await mainline("priority", "7", "soonest", "--repo", REPO);
    expect(typo.code).to.equal(2);
    expect(typo.stderr).to.include("<priority> must be urgent, high, medium, low or an integer 0-255");
    const unknown = await mainline("priority", "70", "low", "--repo", REPO);
    expect(unknown.code).to.not.equal(0);
    expect(unknown.stderr).to.include("70");

    const cancelled = await mainline("cancel", "7", "--repo", REPO);
    expect(cancelled.code, cancelled.stderr).to.equal(0);
    expect(cancelled.stdout.trim()).to.equal("Cancelled PR #7");
    const after = await mainline("status", "7", "--repo", REPO, "--json");
    expect(JSON.parse(after.stdout)).to.include({ state: "CANCELLED", isCurrentlySubmittedToQueue: false });
    await mainline("queue", "resume", "--repo", REPO);
  });

  it("says what a NOT_READY PR waits for: a pull_request event, or the right base branch", async () => {
    const submitted = await mainline("submit", "8", "--repo", REPO);
    expect(submitted.code, submitted.stderr).to.equal(0);
    const unknown = await mainline("status", "8", "--repo", REPO);
    expect(unknown.code, unknown.stderr).to.equal(0);
    expect(unknown.stdout).to.match(
      /^PR #8 NOT_READY \(no pull_request event seen for #8: send one with `mainline pr event` \(POST \/v1\/code-host\/pull-request-events\)\): \n/,
    );
    expect(unknown.stdout).not.to.include("base branch");
    const json = JSON.parse((await mainline("status", "8", "--repo", REPO, "--json")).stdout);
    expect(json.readiness.reason).to.match(
      /^no pull_request event seen for #8: send one with `mainline pr event`/,
    );

    const sha = "b1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
    const elsewhere = await mainline(
      "pr",
      "event",
      "opened",
      "8",
      "--repo",
      REPO,
      "--head",
      "fix/typo",
      "--sha",
      sha,
      "--base",
      "release",
      "--title",
      "Fix a typo",
    );
    expect(elsewhere.code, elsewhere.stderr).to.equal(0);
    const mismatch = await mainline("status", "8", "--repo", REPO);
    expect(mismatch.stdout).to.match(
      /^PR #8 NOT_READY \(its base branch is release, not the queue's main: retarget it, or submit it to that branch's queue\): Fix a typo\n/,
    );

    const cancelled = await mainline("cancel", "8", "--repo", REPO);
    expect(cancelled.code, cancelled.stderr).to.equal(0);
  });

  it("status shows where to see why a PR failed: the failing run's details URL", async () => {
    const sha = "d1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
    const event = await mainline(
      "pr",
      "event",
      "opened",
      "18",
      "--repo",
      REPO,
      "--head",
      "feature/why",
      "--sha",
      sha,
    );
    expect(event.code, event.stderr).to.equal(0);
    expect((await mainline("submit", "18", "--repo", REPO, "--no-batch")).code).to.equal(0);
    const runId = await eventually(async () => {
      const queue = JSON.parse((await mainline("--json", "queue", "get", "--repo", REPO)).stdout) as {
        enqueuedPullRequests: { prNumber: number; testRunId?: string }[];
      };
      const id = queue.enqueuedPullRequests.find((pr) => pr.prNumber === 18)?.testRunId;
      expect(id, "PR #18's test run").to.be.a("string");
      return id!;
    });
    const report = await mainline(
      "report",
      runId,
      "--failed",
      "--details-url",
      "https://ci.example/builds/42",
    );
    expect(report.code, report.stderr).to.equal(0);

    const status = await mainline("status", "18", "--repo", REPO);
    expect(status.stdout).to.match(/^PR #18 FAILED/);
    expect(status.stdout).to.include("why it failed: https://ci.example/builds/42");
  });

  it("says a PR of a parallel queue waits for its impacted targets, until they are set", async () => {
    const target = ["--repo", REPO, "--target", "parallel"];
    expect((await mainline("queue", "create", "--mode", "PARALLEL", ...target)).code).to.equal(0);
    const sha = "c1b2c3d4e5f60718293a4b5c6d7e8f9012345678";
    const event = await mainline(
      "pr",
      "event",
      "opened",
      "9",
      "--head",
      "feature/parallel",
      "--sha",
      sha,
      "--base",
      "parallel",
      "--title",
      "Parallel work",
      "--repo",
      REPO,
    );
    expect(event.code, event.stderr).to.equal(0);
    expect((await mainline("submit", "9", ...target)).code).to.equal(0);
    const waiting = await mainline("status", "9", ...target);
    expect(waiting.stdout).to.match(
      /^PR #9 NOT_READY \(no impacted targets for its head c1b2c3d4e5f6 \(parallel mode\): set them with `mainline targets set` \(POST \/v1\/setImpactedTargets\)\): Parallel work\n/,
    );
    expect((await mainline("targets", "set", "9", "--all", "--sha", sha, ...target)).code).to.equal(0);
    await eventually(async () => {
      const ready = JSON.parse((await mainline("status", "9", "--json", ...target)).stdout);
      expect(ready.state).to.not.equal("NOT_READY");
      expect(ready.readiness).to.not.have.property("reason");
    });
    expect((await mainline("cancel", "9", ...target)).code).to.equal(0);
  });

  it("sets impacted targets for a PR at a commit", async () => {
    const run = await mainline("targets", "set", "7", "web", "api", "--repo", REPO, "--sha", "abcdef1");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout.trim()).to.equal("PR #7 at abcdef1 impacts web, api");
    const all = await mainline("--json", "targets", "set", "7", "--all", "--repo", REPO, "--sha", "abcdef1");
    expect(JSON.parse(all.stdout)).to.deep.equal({ pr: 7, impactedTargets: "ALL" });
    const neither = await mainline("targets", "set", "7", "--repo", REPO, "--sha", "abcdef1");
    expect(neither.code).to.equal(2);
    expect(neither.stderr).to.include("give the impacted target names, or --all");
  });

  it("rejects a PR number that is not one, an unknown event action, and a report without a verdict", async () => {
    const submit = await mainline("submit", "abc", "--repo", REPO);
    expect(submit.code).to.equal(2);
    expect(submit.stderr.trim()).to.equal('mainline: PR number must be a positive whole number (got "abc")');
    const event = await mainline(
      "pr",
      "event",
      "merged",
      "3",
      "--repo",
      REPO,
      "--head",
      "x",
      "--sha",
      "abcdef1",
    );
    expect(event.code).to.equal(2);
    expect(event.stderr).to.include(
      "the action must be one of opened, synchronize, closed, reopened, edited",
    );
    const noSha = await system.run(
      ["pr", "event", "opened", "3", "--repo", REPO, "--head", "no-such-branch"],
      { cwd: dir },
    );
    expect(noSha.code).to.equal(2);
    expect(noSha.stderr).to.include("--sha is missing and no-such-branch is not a commit in");
    const report = await mainline("report", "run-1");
    expect(report.code).to.equal(2);
    expect(report.stderr).to.include("give exactly one of --passed or --failed");
    const both = await mainline("report", "run-1", "--pr", "7", "--passed", "--repo", REPO);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.include("give the test run id, or --pr <number> for the run testing that PR");
    const notQueued = await mainline("report", "--pr", "7", "--passed", "--repo", REPO);
    expect(notQueued.code).to.equal(1);
    expect(notQueued.stderr.trim()).to.match(
      /^mainline: PR #7 is CANCELLED( \([A-Z_]+\))?, not in the queue: there is no test run to report$/,
    );
    const unknownRun = await mainline("report", "run-that-never-was", "--passed");
    expect(unknownRun.code).to.equal(1);
    expect(unknownRun.stderr).to.match(/POST \/reportTestRun answered 4\d\d: /);
  });

  it("shows the service's 400 naming the field for a bad sha", async () => {
    const run = await mainline(
      "pr",
      "event",
      "opened",
      "3",
      "--repo",
      REPO,
      "--head",
      "x",
      "--sha",
      "not-hex",
    );
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include("answered 400");
    expect(run.stderr).to.include("pull_request.head.sha");
  });
});
