import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "@mainline/testing";
import { LocalRemote } from "../../src/demo/local-remote.js";
import { MainlineFixture } from "./mainline-fixture.js";

const BASE = {
  "app.txt": "hello\n",
  "test.sh": 'if [ -e BROKEN ]; then echo "tests fail: BROKEN exists"; exit 1; fi\necho ok\n',
};

/** Waiting commands against a connected git repository: the merge happens for real, on a bare remote. */
describe("mainline CLI: submit --wait, status --wait and report against real git", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-git-"));
    system = await MainlineFixture.start(dir);
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  describe("a repository with a COMMAND runner", () => {
    const REPO = "git.example.com/acme/app";
    let remote: LocalRemote;
    const mainline = (...argv: string[]) =>
      system.run(argv, { cwd: remote.workDir, env: system.env({ MAINLINE_REPO: REPO }) });

    before(async () => {
      remote = await LocalRemote.create(path.join(dir, "app"), BASE);
      await remote.pushPullRequest(1, "feature-1", "Change 1", { "one.txt": "1\n" });
      await remote.pushPullRequest(2, "feature-2", "Change 2", { BROKEN: "yes\n" });
      await remote.pushPullRequest(3, "feature-3", "Change 3", { "three.txt": "3\n" });
      const connected = await mainline(
        "repo",
        "connect",
        "--remote",
        remote.remoteDir,
        "--command",
        "sh test.sh",
      );
      expect(connected.code, connected.stderr).to.equal(0);
      expect(connected.stdout).to.include(`git.example.com/acme/app: remote ${remote.remoteDir}`);
      expect(connected.stdout).to.include('runner COMMAND "sh test.sh"');
      expect((await mainline("queue", "create", "--no-batch")).code).to.equal(0);
      for (const n of [1, 2, 3]) {
        // No --sha: the CLI reads the head commit from the working clone it runs in.
        const event = await mainline(
          "pr",
          "event",
          "opened",
          String(n),
          "--head",
          `feature-${n}`,
          "--title",
          `Change ${n}`,
        );
        expect(event.code, event.stderr).to.equal(0);
      }
    });

    it("shows the connection with repo get", async () => {
      const run = await mainline("repo", "get", "--json");
      expect(JSON.parse(run.stdout)).to.deep.include({
        remoteUrl: remote.remoteDir,
        runner: { kind: "COMMAND", command: "sh test.sh", junitGlobs: [] },
      });
    });

    it("submit --wait follows a good PR until it is merged, printing a line per change, and exits 0", async () => {
      const run = await mainline("submit", "1", "--wait");
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(/^PR #1 MERGED: Change 1\n/);
      expect(run.stderr).to.include("waiting for it to finish");
      expect(run.stderr).to.match(/^\[\s*\d+s\] #1 +MERGED +Change 1$/m);
      expect(await remote.commitsSinceBase()).to.deep.equal([{ subject: "Change 1 (#1)", parents: 1 }]);
    });

    it("submit --wait --json prints the failed PR as JSON and exits 1", async () => {
      const run = await mainline("submit", "2", "--wait", "--json");
      expect(run.code).to.equal(1);
      expect(JSON.parse(run.stdout)).to.include({
        prNumber: 2,
        state: "FAILED",
        failureReason: "TESTS_FAILED",
      });
      // No progress display with --json: stderr has only the note.
      expect(run.stderr).not.to.match(/\[\s*\d+s\]/);
    });

    it("status --wait on a terminal redraws one table in place until every PR is done, and exits 1 as one failed", async () => {
      expect((await mainline("submit", "3")).code).to.equal(0);
      const run = await system.run(["status", "1", "2", "3", "--wait"], {
        cwd: remote.workDir,
        env: system.env({ MAINLINE_REPO: REPO }),
        tty: true,
      });
      expect(run.code, run.stderr).to.equal(1);
      expect(run.stderr).to.include("\u001b[J");
      expect(run.stderr).to.include("git.example.com/acme/app → main");
      expect(run.stderr).to.include("merged 2 · failed 1 · cancelled 0 · open 0");
      expect(run.stdout.split("\n").filter(Boolean)).to.deep.equal([
        "#1    MERGED          Change 1",
        "#2    FAILED          Change 2                                  TESTS_FAILED",
        "#3    MERGED          Change 3",
      ]);
    });
  });

  describe("a repository whose CI reports back (EXTERNAL runner)", () => {
    const REPO = "git.example.com/acme/external";
    let remote: LocalRemote;
    const mainline = (...argv: string[]) =>
      system.run(argv, { cwd: remote.workDir, env: system.env({ MAINLINE_REPO: REPO }) });

    before(async () => {
      remote = await LocalRemote.create(path.join(dir, "external"), BASE, "main");
      await remote.pushPullRequest(5, "feature-5", "Change 5", {
        "five.txt": "5\n",
        "reports/junit.xml": '<testsuite name="ci"><testcase classname="ci" name="works"/></testsuite>\n',
      });
      expect((await mainline("repo", "connect", "--remote", remote.remoteDir, "--external")).code).to.equal(
        0,
      );
      expect((await mainline("queue", "create")).code).to.equal(0);
      expect(
        (await mainline("pr", "event", "opened", "5", "--head", "feature-5", "--title", "Change 5")).code,
      ).to.equal(0);
    });

    it("merges the PR once `mainline report --passed` says the CI run passed", async () => {
      expect((await mainline("submit", "5")).code).to.equal(0);
      const testRunId = await eventually(async () => {
        const queue = JSON.parse((await mainline("queue", "get", "--json")).stdout);
        const id = queue.enqueuedPullRequests[0]?.testRunId as string | undefined;
        expect(id, "a test run has started").to.be.a("string").and.not.equal("");
        return id!;
      }, 20_000);
      const shown = await mainline("queue", "get");
      expect(shown.stdout).to.match(new RegExp(`^#5 +TESTING +medium +${testRunId} +Change 5$`, "m"));

      const reported = await mainline(
        "report",
        testRunId,
        "--passed",
        "--junit",
        "reports/*.xml",
        "--message",
        "green on CI",
      );
      expect(reported.code, reported.stderr).to.equal(0);
      expect(reported.stdout.trim()).to.equal(`Reported run ${testRunId} as passed with 1 JUnit file(s)`);
      const done = await mainline("status", "5", "--wait", "--json");
      expect(done.code, done.stderr).to.equal(0);
      expect(JSON.parse(done.stdout)).to.include({ state: "MERGED" });
      expect((await remote.commitsSinceBase()).map((c) => c.subject)).to.deep.equal(["Change 5 (#5)"]);
    });
  });
});
