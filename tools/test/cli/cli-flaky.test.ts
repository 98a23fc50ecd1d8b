import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually } from "@mainline/testing";
import { LocalRemote } from "../../src/demo/local-remote.js";
import { MainlineFixture } from "./mainline-fixture.js";

const REPO = "git.example.com/acme/billing";

/** A test command whose JUnit report has one passing case and, with FAIL=1, one failing case; it exits 4 then. */
const RUN_TESTS = `mkdir -p reports
{
  echo '<testsuite name="billing">'
  echo '<testcase classname="invoice" name="adds tax"/>'
  if [ -n "$FAIL" ]; then echo '<testcase classname="invoice" name="rounds up"><failure message="off by one">stack</failure></testcase>'; fi
  echo '</testsuite>'
} > reports/junit.xml
[ -z "$FAIL" ] || exit 4
`;

/**
 * Quarantine from the command line: a repository's settings and a test's override decide whether
 * `mainline test` forgives a failure, all through the real services.
 */
describe("mainline flaky: settings, overrides and failing tests", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;
  let work: string;
  const mainline = (...argv: string[]) =>
    system.run(argv, { cwd: work, env: system.env({ MAINLINE_REPO: REPO }) });
  const failingRun = () =>
    mainline("test", "--junit", "reports/*.xml", "--", "sh", "-c", "FAIL=1 sh run-tests.sh");

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-flaky-"));
    system = await MainlineFixture.start(dir);
    work = (await LocalRemote.create(path.join(dir, "billing"), { "run-tests.sh": RUN_TESTS })).workDir;
  });
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("shows that quarantining starts off, and turns it on with auto-quarantine off", async () => {
    const shown = await mainline("flaky", "settings", "get");
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.match(
      /^git\.example\.com\/acme\/billing: quarantining off, auto-quarantine (on|off)\n/,
    );

    const set = await mainline(
      "flaky",
      "settings",
      "set",
      "--quarantining",
      "--no-auto-quarantine",
      "--min-runs",
      "3",
    );
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.match(/^git\.example\.com\/acme\/billing: quarantining on, auto-quarantine off\n/);
    expect(set.stdout).to.include("(min 3 runs)");

    const json = JSON.parse((await mainline("flaky", "settings", "get", "--json")).stdout);
    expect(json).to.include({ quarantining_enabled: true, auto_quarantine_enabled: false, min_runs: 3 });
  });

  it("lists a failing test, and an always override makes `mainline test` forgive it until set back to auto", async () => {
    const before = await failingRun();
    expect(before.code, before.stderr).to.equal(4);

    const listed = await eventually(async () => {
      const run = await mainline("flaky", "list", "--hours", "1");
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(
        /^ID +STATUS \(ON main \+ QUEUE\) +QUARANTINED +OVERRIDE +FAILURE RATE 7D \(ALL RUNS\) +24H +PRS 7D +OWNERS +SUITE +NAME$/m,
      );
      // Failing every run it had, yet healthy: the table says what the status is judged on.
      expect(run.stdout).to.include(
        "STATUS is judged on runs on main and in the merge queue; FAILURE RATE counts every run",
      );
      const row = run.stdout.split("\n").find((line) => line.endsWith(" rounds up"));
      expect(row, run.stdout).to.be.a("string");
      return row!;
    });
    const [testId] = listed.split(/\s+/);
    expect(listed).to.match(/ healthy +no +auto +100% +100% +0 +- +billing +rounds up$/);

    const always = await mainline("flaky", "override", testId!, "always");
    expect(always.code, always.stderr).to.equal(0);
    expect(always.stdout.trim()).to.equal(
      `Test ${testId}: always quarantined (while quarantining is on for the repository)`,
    );
    const forgiven = await failingRun();
    expect(forgiven.code, forgiven.stderr).to.equal(0);
    expect(forgiven.stderr).to.include(
      "every failing test is quarantined (invoice › rounds up); exiting 0 instead of 4",
    );
    const quarantined = await mainline("flaky", "list", "--hours", "1", "--json");
    const { tests } = JSON.parse(quarantined.stdout) as { tests: { id: string; quarantined: boolean }[] };
    const test = tests.find((t) => t.id === testId);
    expect(test).to.include({ quarantined: true });

    const auto = await mainline("flaky", "override", testId!, "AUTO");
    expect(auto.code, auto.stderr).to.equal(0);
    expect(auto.stdout.trim()).to.equal(`Test ${testId}: no override; the automatic rule decides`);
    expect((await failingRun()).code).to.equal(4);

    await mainline("flaky", "override", testId!, "always");
    expect((await mainline("flaky", "settings", "set", "--no-quarantining")).code).to.equal(0);
    expect((await failingRun()).code, "quarantining off: nothing is forgiven").to.equal(4);
  });

  it("charts the tests over time: `mainline insights tests`, its --json and one test's strip", async () => {
    // The previous test ran "rounds up" failing four times, each run with "adds tax" passing.
    const answer = await eventually(async () => {
      const run = await mainline("insights", "tests", "--period", "24h", "--bucket", "hour", "--json");
      expect(run.code, run.stderr).to.equal(0);
      const body = JSON.parse(run.stdout) as {
        buckets: { runs: number; failures: number }[];
        costliest: { test_id: string; name: string; failures: number; runs: number }[];
      };
      expect(body.buckets).to.have.length(24);
      expect(body.buckets.reduce((sum, b) => sum + b.failures, 0)).to.equal(4);
      return body;
    });
    expect(answer.buckets.reduce((sum, b) => sum + b.runs, 0)).to.equal(8);
    expect(answer.costliest.map((t) => [t.name, t.failures, t.runs])).to.deep.equal([["rounds up", 4, 4]]);

    const table = await mainline("insights", "tests", "--period", "24h", "--bucket", "hour");
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.match(/^HOUR +RUNS +FAILED +FAILURE RATE +FLAKY TESTS +BROKEN TESTS$/m);
    expect(table.stdout).to.include("Costliest tests (1 in all):");
    expect(table.stdout).to.match(/ 0 +0 +0s +4\/4 +healthy +rounds up$/m);

    const strip = await mainline("insights", "tests", "--test", answer.costliest[0]!.test_id);
    expect(strip.code, strip.stderr).to.equal(0);
    expect(strip.stdout).to.include("latest runs, oldest first: ✗✗✗✗");
    expect(strip.stdout).to.match(/^DAY +RUNS +FAILED +FAILURE RATE\n\d{4}-\d\d-\d\d +4 +4 +100%$/m);

    const period = await mainline("insights", "tests", "--period", "1y");
    expect(period.code).to.equal(2);
    expect(period.stderr).to.include("must be one of 24h, 7d, 30d, 90d");
  });

  it("says what is wrong with a setting, an override or a window, before or from the service", async () => {
    const nothing = await mainline("flaky", "settings", "set");
    expect(nothing.code).to.equal(2);
    expect(nothing.stderr).to.include(
      "nothing to change: give a setting, e.g. --quarantining --auto-quarantine",
    );
    const rate = await mainline("flaky", "settings", "set", "--flaky-threshold", "2");
    expect(rate.code).to.equal(2);
    expect(rate.stderr).to.include("must be a number greater than 0 and at most 1");
    const word = await mainline("flaky", "override", "00000000-0000-4000-8000-000000000000", "sometimes");
    expect(word.code).to.equal(2);
    expect(word.stderr).to.include('the override must be always, never or auto (got "sometimes")');
    const notAnId = await mainline("flaky", "override", "rounds-up", "always");
    expect(notAnId.code).to.equal(1);
    expect(notAnId.stderr).to.match(/POST \/flaky-tests\/set-quarantine-override answered 400: .*test_id/);
    const window = await mainline("flaky", "list", "--hours", "200");
    expect(window.code).to.equal(2);
    expect(window.stderr).to.include("--hours must be at most 168");
  });
});
