import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { eventually, freePort } from "@mainline/testing";
import { connectedRepository } from "./connected-repository.js";
import { MainlineFixture, type CliRun } from "./mainline-fixture.js";

/** `status --wait` while Mainline goes away: it says what it waits for, retries, and exits 3 only when it gives up. */
describe("mainline CLI: status --wait through an outage", function () {
  this.timeout(90_000);
  const REPO = "git.example.com/acme/app";
  let dir: string;
  let system: MainlineFixture;
  let mainline: (...argv: string[]) => Promise<CliRun>;
  let workDir: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-outage-"));
    system = await MainlineFixture.start(dir);
    // The test command waits for the test's go, so the PR is still being tested while the coordinator is away.
    const connected = await connectedRepository(
      system,
      dir,
      REPO,
      { "test.sh": `while [ ! -e "${dir}/go" ]; do sleep 0.1; done\necho ok\n` },
      [{ number: 1, title: "Change 1", files: { "one.txt": "1\n" } }],
    );
    mainline = connected.mainline;
    workDir = connected.remote.workDir;
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("waits out a coordinator restart (503s), saying so on stderr, and exits 0 once the PR merges", async () => {
    expect((await mainline("submit", "1")).code).to.equal(0);
    const waiting = mainline("status", "1", "--wait");
    await sleep(1_000);
    await system.coordinator.stop();
    await eventually(async () => {
      const answer = await system.post("/getSubmittedPullRequest", {
        repo: { host: "git.example.com", owner: "acme", name: "app" },
        targetBranch: "main",
        pr: { number: 1 },
      });
      expect(answer.status).to.equal(503);
    });
    // Several polls meet the outage.
    await sleep(2_500);
    await system.coordinator.start();
    await writeFile(path.join(dir, "go"), "");

    const run = await waiting;
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^PR #1 MERGED: Change 1\n/);
    expect(run.stderr).to.match(
      /waiting for PR #1 in git\.example\.com\/acme\/app → main: .*answered 503.*; retrying for up to 120 s/,
    );
    expect(run.stderr).to.include("Mainline answers again; still waiting for PR #1");
  });

  it("says at once that it is retrying when it cannot connect, and exits 3 when it gives up", async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const run = await system.run(["status", "1", "--wait", "--retry-for", "2"], {
      cwd: workDir,
      env: system.env({ MAINLINE_REPO: REPO, MAINLINE_URL: nobody }),
    });
    expect(run.code, run.stderr).to.equal(3);
    expect(Date.now() - started).to.be.below(10_000);
    const lines = run.stderr.trim().split("\n");
    expect(lines[0]).to.match(
      /^waiting for PR #1 in git\.example\.com\/acme\/app → main: cannot reach Mainline at .*; retrying for up to 2 s$/,
    );
    expect(run.stderr).to.match(/gave up waiting for PR #1 .* after 2 s of retrying: cannot reach Mainline/);
  });
});
