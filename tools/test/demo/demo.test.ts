import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_PULL_REQUESTS } from "../../src/demo/demo-project.js";
import { runDemo, type DemoResult } from "../../src/demo/run-demo.js";
import { freePort, nodeEntryArgs } from "@mainline/testing";
import { CapturedSink, MainlineFixture } from "../cli/mainline-fixture.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("make demo: ten pull requests of a real git repository through the real services", function () {
  // The whole system starts and ten PRs go through in the hook: 32 s beside three other test files on a 2-core
  // machine, but over 240 s in a CI run on a slow machine and up to 428 s in a clean-clone run held to half a core
  // (README "Tests"). The demo's own deadline (run-demo.ts) is ten minutes.
  this.timeout(600_000);
  let dir: string;
  let system: MainlineFixture;
  let result: DemoResult;
  const out = new CapturedSink(false);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-demo-"));
    system = await MainlineFixture.start(dir);
    result = await runDemo({
      mainlineUrl: system.baseUrl,
      token: system.token,
      workDir: path.join(dir, "demo"),
      out,
    });
  });
  after(async () => {
    // A hook that timed out says nothing of where the demo was: its output does.
    if (result === undefined) console.error(`the demo had printed:\n${out.text}`);
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("merges 7, fails the 2 that break the tests and the 1 that conflicts, each for its reason", () => {
    expect(result.summary.merged).to.deep.equal([1, 2, 3, 5, 7, 9, 10]);
    expect(result.summary.failed).to.deep.equal([
      { number: 4, reason: "TESTS_FAILED" },
      { number: 6, reason: "MERGE_CONFLICT" },
      { number: 8, reason: "TESTS_FAILED" },
    ]);
    expect(result.summary.surprises).to.deep.equal([]);
  });

  it("lands each merged PR as its own single-parent commit on the remote's main, once", async () => {
    const commits = await result.remote.commitsSinceBase();
    const title = (n: number) => DEMO_PULL_REQUESTS.find((pr) => pr.number === n)?.title;
    // In the order the queue merged them: the good PRs of a batch that failed land after their bisection.
    expect([...commits.map((c) => c.subject)].sort()).to.deep.equal(
      [1, 2, 3, 5, 7, 9, 10].map((n) => `${title(n)} (#${n})`).sort(),
    );
    expect(commits.every((c) => c.parents === 1)).to.equal(true);
    expect(result.targetLog).to.have.length(8);
    expect(result.targetLog.at(-1)).to.match(/^[0-9a-f]+ Initial commit$/);
  });

  it("drives everything through the CLI and prints progress, the summary and the remote's log", () => {
    const text = out.text;
    expect(text).to.include("$ mainline repo connect --remote ");
    expect(text).to.include("$ mainline queue create --concurrency 2 --batch --batching-min-size 5");
    expect(text).to.include("$ mainline pr event opened 6 --head docs/tagline-2");
    expect(text).to.include("$ mainline submit 10");
    // Not a terminal here, so progress is one line per change of a PR.
    expect(text).to.match(/\[\s*\d+s\] #6 +FAILED +Reword the README tagline +MERGE_CONFLICT/);
    expect(text).to.match(/merged {5}7 {2}#1 #2 #3 #5 #7 #9 #10/);
    expect(text).to.include("failed     3  #4 TESTS_FAILED, #6 MERGE_CONFLICT, #8 TESTS_FAILED");
    expect(text).to.match(
      new RegExp(`CI runs {4}${result.summary.ciRuns} {2}test runs for 10 pull requests`),
    );
    expect(text).to.match(/wall time {2}\d+(m\d\d)?s/);
    expect(text).to.include(`log --oneline main\n${result.targetLog.join("\n")}\n`);
  });

  it("counts the test runs Mainline started, one per test branch it pushed", () => {
    // Two batches of five to start with; the failed ones are bisected, which costs more runs.
    expect(result.summary.ciRuns).to.be.at.least(2);
    expect(result.summary.ciRuns).to.be.below(25);
  });

  it("tells how to start Mainline when `make demo` runs without `make dev`", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const ran = spawnSync(process.execPath, nodeEntryArgs("tools/src/demo/main.ts", root), {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, MAINLINE_URL: url, MAINLINE_TOKEN: "t" },
    });
    expect(ran.status, "3: the service cannot be reached, as for the CLI").to.equal(3);
    expect(ran.stderr).to.include(`Mainline is not running at ${url}: run \`make dev\` in another terminal`);
  });

  it("says where the token comes from when there is none, and exits 2 (settings)", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, MAINLINE_URL: system.baseUrl, DEV_DATA_DIR: dir };
    delete env.MAINLINE_TOKEN;
    const ran = spawnSync(process.execPath, nodeEntryArgs("tools/src/demo/main.ts", root), {
      cwd: root,
      encoding: "utf8",
      env,
    });
    expect(ran.status).to.equal(2);
    expect(ran.stderr).to.include("demo: no API token: start `make dev` first");
  });
});
