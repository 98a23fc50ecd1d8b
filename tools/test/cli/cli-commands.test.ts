import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, freePort } from "@mainline/testing";
import { MainlineFixture } from "./mainline-fixture.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const REPO = "git.example.com/acme/app";

describe("mainline CLI: queues, pull requests, administration and webhooks over the real HTTP API", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;
  const mainline = (...argv: string[]) => system.run(argv);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-"));
    system = await MainlineFixture.start(dir);
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  describe("queue", () => {
    it("creates a queue with batching and shows it, as text and as JSON", async () => {
      const created = await mainline(
        "queue",
        "create",
        "--repo",
        REPO,
        "--concurrency",
        "2",
        "--batch",
        "--batching-min-size",
        "3",
      );
      expect(created.code, created.stderr).to.equal(0);
      expect(created.stdout).to.include("Created the queue");
      expect(created.stdout).to.include("git.example.com/acme/app → main: RUNNING");
      expect(created.stdout).to.include("concurrency 2");
      expect(created.stdout).to.include("batching on (min size 3");

      const shown = await mainline("--json", "queue", "get", "--repo", REPO);
      expect(shown.code).to.equal(0);
      const queue = JSON.parse(shown.stdout);
      expect(queue).to.include({
        state: "RUNNING",
        concurrency: 2,
        batch: true,
        batchingMinSize: 3,
        branch: "main",
      });
      expect(queue.enqueuedPullRequests).to.deep.equal([]);
    });

    it("updates settings, and pauses, drains and resumes the queue", async () => {
      const updated = await mainline(
        "queue",
        "update",
        "--repo",
        REPO,
        "--no-batch",
        "--pending-failure-depth",
        "2",
      );
      expect(updated.code, updated.stderr).to.equal(0);
      expect(updated.stdout).to.include("batching off");
      const adaptive = await mainline(
        "queue",
        "update",
        "--repo",
        REPO,
        "--batch",
        "--batching-mode",
        "ADAPTIVE",
      );
      expect(adaptive.code, adaptive.stderr).to.equal(0);
      expect(adaptive.stdout).to.include("batching on (adaptive size up to 3");
      const refused = await mainline("queue", "update", "--repo", REPO, "--batching-mode", "SOMETIMES");
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.include("batchingMode");
      const back = await mainline(
        "queue",
        "update",
        "--repo",
        REPO,
        "--no-batch",
        "--batching-mode",
        "FIXED",
      );
      expect(back.code, back.stderr).to.equal(0);
      expect(updated.stdout).to.include("pending failure depth 2");
      for (const [verb, state] of [
        ["pause", "PAUSED"],
        ["drain", "DRAINING"],
        ["resume", "RUNNING"],
      ] as const) {
        const run = await mainline("queue", verb, "--repo", REPO);
        expect(run.code, run.stderr).to.equal(0);
        expect(run.stdout.trim()).to.equal(`git.example.com/acme/app → main is now ${state}`);
      }
      const json = await mainline("queue", "get", "--repo", REPO, "--json");
      expect(JSON.parse(json.stdout)).to.include({ state: "RUNNING", batch: false, pendingFailureDepth: 2 });
    });

    it("names the option and the rule for a bad number, before calling the service", async () => {
      const run = await mainline("queue", "update", "--repo", REPO, "--concurrency", "zero");
      expect(run.code).to.equal(2);
      expect(run.stderr).to.include(
        "option '--concurrency <n>' argument 'zero' is invalid. must be a whole number >= 1",
      );
    });

    it("shows the service's 400 for a value only the service checks", async () => {
      const run = await mainline("queue", "update", "--repo", REPO, "--mode", "sideways");
      expect(run.code).to.equal(1);
      expect(run.stderr).to.match(
        /^mainline: POST \/updateQueue answered 400: .*mode.*must be one of SINGLE, PARALLEL/,
      );
    });

    it("says the queue already exists, and deletes an empty queue", async () => {
      const again = await mainline("queue", "create", "--repo", REPO);
      expect(again.code).to.equal(1);
      expect(again.stderr).to.include("POST /createQueue answered 409");
      const other = "git.example.com/acme/other";
      expect((await mainline("queue", "create", "--repo", other, "--target", "release")).code).to.equal(0);
      const deleted = await mainline("queue", "delete", "--repo", other, "--target", "release");
      expect(deleted.code, deleted.stderr).to.equal(0);
      expect(deleted.stdout).to.include("Deleted the queue git.example.com/acme/other → release");
      const gone = await mainline("queue", "get", "--repo", other, "--target", "release");
      expect(gone.code).to.equal(1);
      expect(gone.stderr).to.include("answered 404");
    });

    it("asks for the repository when neither --repo nor MAINLINE_REPO is given, and rejects a malformed one", async () => {
      const missing = await mainline("queue", "get");
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.include("which repository? give --repo host/owner/name");
      const malformed = await mainline("queue", "get", "--repo", "acme/app");
      expect(malformed.code).to.equal(2);
      expect(malformed.stderr).to.include(
        '--repo must be host/owner/name, e.g. github.com/acme/app (got "acme/app")',
      );
      const fromEnv = await system.run(["queue", "get", "--json"], {
        env: system.env({ MAINLINE_REPO: REPO }),
      });
      expect(fromEnv.code, fromEnv.stderr).to.equal(0);
    });
  });

  describe("pull requests", () => {
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
      const all = await mainline(
        "--json",
        "targets",
        "set",
        "7",
        "--all",
        "--repo",
        REPO,
        "--sha",
        "abcdef1",
      );
      expect(JSON.parse(all.stdout)).to.deep.equal({ pr: 7, impactedTargets: "ALL" });
      const neither = await mainline("targets", "set", "7", "--repo", REPO, "--sha", "abcdef1");
      expect(neither.code).to.equal(2);
      expect(neither.stderr).to.include("give the impacted target names, or --all");
    });

    it("rejects a PR number that is not one, an unknown event action, and a report without a verdict", async () => {
      const submit = await mainline("submit", "abc", "--repo", REPO);
      expect(submit.code).to.equal(2);
      expect(submit.stderr.trim()).to.equal(
        'mainline: PR number must be a positive whole number (got "abc")',
      );
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

  describe("connection and credentials", () => {
    it("says to export MAINLINE_TOKEN when it is missing", async () => {
      const run = await system.run(["queue", "get", "--repo", REPO], {
        env: system.env({ MAINLINE_TOKEN: undefined }),
      });
      expect(run.code).to.equal(2);
      expect(run.stderr.trim()).to.equal(
        "mainline: MAINLINE_TOKEN is not set: export the API token `make dev` printed (it is also in .data/dev-api-token)",
      );
    });

    it("shows the 401 and what to check for a token the gateway does not know", async () => {
      const run = await system.run(["queue", "get", "--repo", REPO], {
        env: system.env({ MAINLINE_TOKEN: "mlt_wrong" }),
      });
      expect(run.code).to.equal(1);
      expect(run.stderr).to.include("POST /getQueue answered 401");
      expect(run.stderr).to.include("check MAINLINE_TOKEN");
    });

    it("says the service cannot be reached, and exits 3", async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const run = await system.run(["queue", "get", "--repo", REPO], {
        env: system.env({ MAINLINE_URL: url }),
      });
      expect(run.code).to.equal(3);
      expect(run.stderr).to.match(
        /^mainline: cannot reach Mainline at http:\/\/127\.0\.0\.1:\d+\/v1 \(connect ECONNREFUSED .*\): start it with `make dev`/,
      );
    });

    it("accepts MAINLINE_URL with or without /v1, and rejects one that is not a URL", async () => {
      const withV1 = await system.run(["queue", "get", "--repo", REPO], {
        env: system.env({ MAINLINE_URL: `${system.baseUrl}/v1/` }),
      });
      expect(withV1.code, withV1.stderr).to.equal(0);
      const bad = await system.run(["queue", "get", "--repo", REPO], {
        env: system.env({ MAINLINE_URL: "localhost:8080" }),
      });
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include("MAINLINE_URL must start with http:// or https://");
    });
  });

  describe("admin", () => {
    const asAdmin = (...argv: string[]) =>
      system.run(argv, { env: system.env({ MAINLINE_TOKEN: system.adminToken }) });

    it("creates and lists organisations with an admin token, and refuses an ordinary one", async () => {
      const created = await asAdmin("admin", "org", "create", "globex", "--name", "Globex Corp");
      expect(created.code, created.stderr).to.equal(0);
      expect(created.stdout.trim()).to.equal("Created organisation globex (Globex Corp)");
      const listed = await asAdmin("--json", "admin", "orgs", "list");
      expect(JSON.parse(listed.stdout).organizations).to.deep.include({
        slug: "globex",
        name: "Globex Corp",
      });
      const refused = await mainline("admin", "org", "list");
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include("answered 403");
    });

    it("creates a token that works, lists it, and revokes it", async () => {
      const created = await asAdmin(
        "admin",
        "token",
        "create",
        "--org",
        "globex",
        "--description",
        "ci",
        "--json",
      );
      expect(created.code, created.stderr).to.equal(0);
      const { token, summary } = JSON.parse(created.stdout) as { token: string; summary: { id: string } };
      expect(summary).to.include({ org: "globex", description: "ci", admin: false });
      const asGlobex = (...argv: string[]) =>
        system.run(argv, { env: system.env({ MAINLINE_TOKEN: token }) });
      expect((await asGlobex("queue", "create", "--repo", "git.example.com/globex/site")).code).to.equal(0);

      const listed = await asAdmin("admin", "tokens", "list", "--org", "globex");
      expect(listed.stdout).to.match(new RegExp(`^${summary.id} +globex +no .* ci$`, "m"));
      const revoked = await asAdmin("admin", "token", "revoke", summary.id, "--org", "globex");
      expect(revoked.stdout.trim()).to.equal(`Revoked token ${summary.id}`);
      const after = await asGlobex("queue", "get", "--repo", "git.example.com/globex/site");
      expect(after.code).to.equal(1);
      expect(after.stderr).to.include("answered 401");
    });
  });

  describe("webhooks", () => {
    it("subscribes a URL, lists it, sends a test event, and deletes it", async () => {
      const created = await mainline(
        "webhooks",
        "create",
        "http://127.0.0.1:9/hooks",
        "--event",
        "pull_request.merged",
        "--json",
      );
      expect(created.code, created.stderr).to.equal(0);
      const { subscription } = JSON.parse(created.stdout) as {
        subscription: { id: string; secret: string; eventTypes: string[] };
      };
      expect(subscription.secret).to.match(/^whsec_/);
      expect(subscription.eventTypes).to.deep.equal(["pull_request.merged"]);

      const listed = await mainline("webhooks", "list");
      expect(listed.stdout).to.match(
        new RegExp(`^${subscription.id} +http://127.0.0.1:9/hooks +pull_request.merged +enabled$`, "m"),
      );
      const test = await mainline("webhooks", "test", subscription.id);
      expect(test.code, test.stderr).to.equal(0);
      expect(test.stdout).to.match(new RegExp(`^Queued test event \\S+ for ${subscription.id}`));
      const deleted = await mainline("webhooks", "delete", subscription.id);
      expect(deleted.stdout.trim()).to.equal(`Deleted subscription ${subscription.id}`);
      expect((await mainline("webhooks", "list")).stdout.trim()).to.equal("No webhook subscriptions.");
    });

    it("shows the service's 400 for an event type it does not know", async () => {
      const run = await mainline(
        "webhooks",
        "create",
        "http://127.0.0.1:9/hooks",
        "--event",
        "no.such.event",
      );
      expect(run.code).to.equal(1);
      expect(run.stderr).to.include("answered 400");
      expect(run.stderr).to.include("no.such.event");
    });
  });

  describe("the installed bin", () => {
    const bin = (args: string[], env: NodeJS.ProcessEnv) =>
      spawnSync(path.join(root, "node_modules", ".bin", "mainline"), args, {
        cwd: tmpdir(),
        encoding: "utf8",
        env,
      });

    it("prints help from any directory", () => {
      const run = bin(["--help"], process.env);
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stdout).to.include("Usage: mainline [options] [command]");
      expect(run.stdout).to.include("MAINLINE_URL");
    });

    it("exits 2 with the fix when MAINLINE_TOKEN is missing", () => {
      const { MAINLINE_TOKEN: _drop, ...env } = process.env;
      const run = bin(["status", "1", "--repo", REPO], env);
      expect(run.status).to.equal(2);
      expect(run.stderr).to.include("MAINLINE_TOKEN is not set");
    });
  });
});
