import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connectedRepository } from "./connected-repository.js";
import { MainlineFixture, type CliRun } from "./mainline-fixture.js";

/** What a new user reaches for after a PR failed: its run's output, its timeline, and the list of queues. */
describe("mainline CLI: logs, the status timeline and queue list", function () {
  this.timeout(60_000);
  const REPO = "git.example.com/acme/shop";
  let dir: string;
  let system: MainlineFixture;
  let mainline: (...argv: string[]) => Promise<CliRun>;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-logs-"));
    system = await MainlineFixture.start(dir);
    ({ mainline } = await connectedRepository(
      system,
      dir,
      REPO,
      { "test.sh": 'if [ -e BROKEN ]; then echo "cart total: expected 12, got 8"; exit 1; fi\necho ok\n' },
      [{ number: 1, title: "Break the cart", files: { BROKEN: "yes\n" } }],
    ));
    const failed = await mainline("submit", "1", "--wait");
    expect(failed.code, failed.stderr).to.equal(1);
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("logs prints the failed run's output, with the token the link alone lacks", async () => {
    const run = await mainline("logs", "1");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include("cart total: expected 12, got 8");
    expect(run.stderr).to.match(/^PR #1 FAILED \(TESTS_FAILED\): output of test run \S+$/m);
  });

  it("logs of a PR that did not fail says so, exit 1", async () => {
    const run = await mainline("logs", "7");
    expect(run.code).to.equal(1);
  });

  it("the human status shows the PR's timeline, as --json has it", async () => {
    const run = await mainline("status", "1");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include("  timeline:");
    expect(run.stdout).to.match(/^ {4}\S+ {2}PENDING → TESTING/m);
    expect(run.stdout).to.match(/^ {4}\S+ {2}PENDING_FAILURE → FAILED {2}TESTS_FAILED {2}\(run \S+\)$/m);
  });

  it("queue list shows the organisation's queues", async () => {
    const run = await mainline("queue", "list");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^QUEUE +STATE +MODE +DEPTH +TESTING +RUNS +LAST HOUR$/m);
    expect(run.stdout).to.match(
      /^git\.example\.com\/acme\/shop → main +RUNNING +SINGLE ×\d+ +0 +0 +0 +merged 0 · failed 1/m,
    );
    const none = await mainline("queue", "list", "--repo", "git.example.com/acme/none");
    expect(none.stdout.trim()).to.equal(
      "git.example.com/acme/none has no queue (mainline queue create makes one)",
    );
  });
});
