import { expect } from "chai";
import { execFileSync } from "node:child_process";
import { access, mkdtemp, rm, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, freePort } from "@mainline/testing";
import { LocalRemote } from "../../src/demo/local-remote.js";
import { MainlineFixture } from "./mainline-fixture.js";

const REPO = "git.example.com/acme/shop";
const repo = { host: "git.example.com", owner: "acme", name: "shop" };

/** A test command that writes a JUnit report: FAIL_FLAKY and FAIL_REAL add failing cases, EXIT_CODE ends it. */
const RUN_TESTS = `echo "running the shop tests"
mkdir -p reports
{
  echo '<testsuite name="shop" tests="3">'
  echo '<testcase classname="cart" name="adds items"/>'
  if [ -n "$FAIL_FLAKY" ]; then echo '<testcase classname="cart" name="checkout is flaky"><failure message="timed out">stack</failure></testcase>'; fi
  if [ -n "$FAIL_REAL" ]; then echo '<testcase classname="cart" name="totals are right"><failure message="expected 3">stack</failure></testcase>'; fi
  echo '</testsuite>'
} > reports/junit.xml
touch ran.marker
exit \${EXIT_CODE:-0}
`;

describe("mainline test -- <command>: upload JUnit, forgive only quarantined failures", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;
  let work: string;
  const test = (env: Record<string, string>, ...argv: string[]) =>
    system.run(["test", "--repo", REPO, "--junit", "reports/*.xml", ...argv], {
      cwd: work,
      env: system.env(env),
    });
  const flaky = async (route: string, body: object): Promise<Record<string, unknown>> => {
    const response = await system.post(`/flaky-tests/${route}`, { repo, ...body });
    const text = await response.text();
    expect(response.status, text).to.equal(200);
    return JSON.parse(text) as Record<string, unknown>;
  };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-test-"));
    system = await MainlineFixture.start(dir);
    // A real checkout: the commit and branch of the upload come from git.
    work = (await LocalRemote.create(path.join(dir, "shop"), { "run-tests.sh": RUN_TESTS })).workDir;
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("passes the command's output through, uploads the report, and exits 0 when the command passed", async () => {
    const run = await test({}, "--", "sh", "run-tests.sh");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include("running the shop tests");
    expect(run.stderr).to.include(
      "mainline test: uploaded 1 JUnit file(s): 1 results, 1 passed, 0 failed, 0 skipped",
    );
  });

  it("keeps the command's exit code while quarantining is off for the repository", async () => {
    const run = await test({ FAIL_FLAKY: "1", EXIT_CODE: "3" }, "--", "sh", "run-tests.sh");
    expect(run.code).to.equal(3);
    expect(run.stderr).to.include("1 passed, 1 failed");
    expect(run.stderr).to.include(
      "mainline test: quarantining is off for this repository; keeping the command's exit code 3",
    );
  });

  it("exits 0 when every failing test is quarantined, and keeps the code when one is not", async () => {
    await flaky("update-repository-settings", { quarantining_enabled: true });
    const now = Date.now();
    const failing = await eventually(async () => {
      const page = await flaky("list-failing-tests", {
        org_url_slug: "acme",
        start_time: new Date(now - 3_600_000).toISOString(),
        end_time: new Date(now + 3_600_000).toISOString(),
        page_query: { page_size: 100 },
      });
      const found = (page.tests as { id: string; name: string }[]).find(
        (t) => t.name === "checkout is flaky",
      );
      expect(found, "the uploaded failure is listed").to.not.equal(undefined);
      return found as { id: string };
    });
    await flaky("set-quarantine-override", { test_id: failing.id, override: "ALWAYS_QUARANTINE" });

    const forgiven = await test({ FAIL_FLAKY: "1", EXIT_CODE: "3" }, "--", "sh", "run-tests.sh");
    expect(forgiven.code, forgiven.stderr).to.equal(0);
    expect(forgiven.stderr).to.include(
      "mainline test: every failing test is quarantined (cart › checkout is flaky); exiting 0 instead of 3",
    );

    const notForgiven = await test(
      { FAIL_FLAKY: "1", FAIL_REAL: "1", EXIT_CODE: "3" },
      "--",
      "sh",
      "run-tests.sh",
    );
    expect(notForgiven.code).to.equal(3);
    expect(notForgiven.stderr).to.include(
      "mainline test: not quarantined: cart › totals are right; keeping the command's exit code 3",
    );
  });

  it("with --json prints only the decision on stdout, the command's output going to stderr", async () => {
    const run = await test({ FAIL_FLAKY: "1", EXIT_CODE: "3" }, "--json", "--", "sh", "run-tests.sh");
    expect(run.code).to.equal(0);
    expect(run.stderr).to.include("running the shop tests");
    const decision = JSON.parse(run.stdout) as { quarantined: { name: string }[]; upload: object };
    expect(decision).to.deep.include({
      exitCode: 0,
      commandExitCode: 3,
      verdict: "all-quarantined",
      notQuarantined: [],
    });
    expect(decision.quarantined.map((t) => t.name)).to.deep.equal(["cart › checkout is flaky"]);
    expect(decision.upload).to.include({ files: 1, failed: 1 });
  });

  it("keeps the command's exit code and says why when the service cannot be reached", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await test(
      { FAIL_FLAKY: "1", EXIT_CODE: "3", MAINLINE_URL: url },
      "--",
      "sh",
      "run-tests.sh",
    );
    expect(run.code).to.equal(3);
    expect(run.stdout).to.include("running the shop tests");
    expect(run.stderr).to.match(
      /mainline test: cannot reach Mainline at http:\/\/127\.0\.0\.1:\d+\/v1 \(connect ECONNREFUSED .*\): .*; keeping the command's exit code 3/,
    );
  });

  it("exits 0 when the command passed but says on stderr that the results were not uploaded, and why", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const run = await test({ MAINLINE_URL: url }, "--", "sh", "run-tests.sh");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include("running the shop tests");
    expect(run.stderr).to.match(
      /^mainline test: the results were not uploaded \(1 JUnit file\(s\)\): cannot reach Mainline at http:\/\/127\.0\.0\.1:\d+\/v1 \(connect ECONNREFUSED .*\)/m,
    );

    const json = await test({ MAINLINE_URL: url }, "--json", "--", "sh", "run-tests.sh");
    expect(json.code).to.equal(0);
    expect(JSON.parse(json.stdout))
      .to.have.property("uploadError")
      .that.matches(/^cannot reach Mainline at /);
  });

  it("says the results were not uploaded when the service refuses them", async () => {
    const run = await test({ MAINLINE_TOKEN: "not-a-token" }, "--", "sh", "run-tests.sh");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr).to.include(
      "mainline test: the results were not uploaded (1 JUnit file(s)): POST /flaky-tests/upload answered 401",
    );
  });

  it("runs one quoted argument through sh, and never forgives a failure whose report is older than the run", async () => {
    await test({}, "--", "sh", "run-tests.sh");
    const old = new Date(Date.now() - 3_600_000);
    await utimes(path.join(work, "reports", "junit.xml"), old, old);
    const run = await test({}, "--", "echo before && exit 4");
    expect(run.code).to.equal(4);
    expect(run.stdout).to.include("before");
    expect(run.stderr).to.include(
      "mainline test: no JUnit file matched reports/*.xml (written since the command started)",
    );
    expect(run.stderr).to.include(
      "wrote no JUnit report, so no failure can be quarantined; keeping the command's exit code 4",
    );
  });

  it("exits 127 when the command does not exist", async () => {
    const run = await test({}, "--", "no-such-test-runner", "--all");
    expect(run.code).to.equal(127);
    expect(run.stderr).to.include("mainline test: no-such-test-runner: command not found");
  });

  it("refuses to run without --junit, and without a token, saying what to give", async () => {
    await rm(path.join(work, "ran.marker"), { force: true });
    const noJunit = await system.run(["test", "--repo", REPO, "--", "sh", "run-tests.sh"], {
      cwd: work,
      env: system.env(),
    });
    expect(noJunit.code).to.equal(2);
    expect(noJunit.stderr).to.include(
      "--junit is required: the glob of the JUnit XML files the command writes",
    );
    const noToken = await test({ MAINLINE_TOKEN: "" }, "--", "sh", "run-tests.sh");
    expect(noToken.code).to.equal(2);
    expect(noToken.stderr).to.include("MAINLINE_TOKEN is not set");
    const ran = await access(path.join(work, "ran.marker")).then(
      () => true,
      () => false,
    );
    expect(ran, "the command did not run").to.equal(false);
  });

  it("asks for --branch on a detached HEAD", async () => {
    const detached = path.join(dir, "detached");
    const remote = await LocalRemote.create(detached, { "a.txt": "a\n" });
    execFileSync("git", ["checkout", "-q", "--detach"], { cwd: remote.workDir });
    const run = await system.run(["test", "--repo", REPO, "--junit", "*.xml", "--", "true"], {
      cwd: remote.workDir,
      env: system.env(),
    });
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include("no --branch given and HEAD is detached: give --branch <name>");
  });
});
