import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@mainline/testing";
import { MainlineFixture } from "./mainline-fixture.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const REPO = "git.example.com/acme/app";

describe("mainline CLI: queues, administration and webhooks over the real HTTP API", function () {
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
      expect(back.stdout).to.include("bisection isolated, concurrency");
      const stacked = await mainline("queue", "update", "--repo", REPO, "--bisection-mode", "stacked");
      expect(stacked.code, stacked.stderr).to.equal(0);
      expect(stacked.stdout).to.include("bisection stacked, concurrency");
      const badSearch = await mainline("queue", "update", "--repo", REPO, "--bisection-mode", "BINARY");
      expect(badSearch.code).to.not.equal(0);
      expect(badSearch.stderr).to.include("bisectionMode");
      expect(updated.stdout).to.include("pending failure depth 2");
      expect(updated.stdout).to.include("quarantined ignored while quarantining is on");
      const testAware = await mainline(
        "queue",
        "update",
        "--repo",
        REPO,
        "--ignore-quarantined-tests",
        "off",
        "--hold-on-broken-target",
        "on",
      );
      expect(testAware.code, testAware.stderr).to.equal(0);
      expect(testAware.stdout).to.include("quarantined off");
      expect(testAware.stdout).to.include("broken target holds new runs");
      const badSwitch = await mainline(
        "queue",
        "update",
        "--repo",
        REPO,
        "--retry-known-flaky-tests",
        "maybe",
      );
      expect(badSwitch.code).to.equal(2);
      expect(badSwitch.stderr).to.include("must be on, off or follow");
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
