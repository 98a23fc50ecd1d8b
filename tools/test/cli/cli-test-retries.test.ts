import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { LocalRemote } from "../../src/demo/local-remote.js";
import { MainlineFixture } from "./mainline-fixture.js";

const REPO = "git.example.com/acme/retry";
const repo = { host: "git.example.com", owner: "acme", name: "retry" };

/**
 * A test command with a flaky test (fails on the runs before FLAKY_PASSES_AT, counted in a file), an optional
 * real failure (FAIL_REAL), and BULK more failing tests; it exits 3 when a test failed.
 */
const RUN_TESTS = `n=$(($(cat attempts 2>/dev/null || echo 0) + 1)); echo $n > attempts
echo "attempt $n"
mkdir -p reports
failed=0
{
  echo '<testsuite name="shop">'
  echo '<testcase classname="cart" name="adds items"/>'
  if [ "$n" -lt "\${FLAKY_PASSES_AT:-2}" ]; then failed=1; echo '<testcase classname="cart" name="checkout is flaky"><failure message="timed out">stack</failure></testcase>'; else echo '<testcase classname="cart" name="checkout is flaky"/>'; fi
  if [ -n "$FAIL_REAL" ]; then failed=1; echo '<testcase classname="cart" name="totals are right"><failure message="expected 3">stack</failure></testcase>'; fi
  i=0; while [ "$i" -lt "\${BULK:-0}" ]; do failed=1; echo "<testcase classname=\\"bulk\\" name=\\"t$i\\"><failure message=\\"no\\"/></testcase>"; i=$((i + 1)); done
  echo '</testsuite>'
} > reports/junit.xml
[ "$failed" = 0 ] || exit 3
`;

describe("mainline test --retries: re-run the command, green only when every failure was a flake", function () {
  this.timeout(90_000);
  let dir: string;
  let system: MainlineFixture;
  let work: string;
  const test = (env: Record<string, string>, ...argv: string[]) =>
    system.run(["test", "--repo", REPO, "--junit", "reports/*.xml", ...argv, "--", "sh", "run-tests.sh"], {
      cwd: work,
      env: system.env(env),
    });
  const freshCount = () => rm(path.join(work, "attempts"), { force: true });

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-retry-"));
    system = await MainlineFixture.start(dir);
    work = (await LocalRemote.create(path.join(dir, "retry"), { "run-tests.sh": RUN_TESTS })).workDir;
  });
  beforeEach(freshCount);
  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("exits 0 when the failed test passes on a retry, names it flaky, and uploads both attempts", async () => {
    const run = await test({}, "--retries", "2");
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.include("attempt 1").and.to.include("attempt 2").and.not.to.include("attempt 3");
    expect(run.stderr).to.include("mainline test: attempt 2 of 3: re-running for 1 failed test(s)");
    expect(run.stderr).to.include(
      "mainline test: flaky (failed, then passed on a retry): cart › checkout is flaky; exiting 0 instead of 3",
    );
    // The flaky-test service saw the failure and the pass of the same test on the same commit.
    const now = Date.now();
    const response = await system.post("/flaky-tests/list-failing-tests", {
      repo,
      org_url_slug: "acme",
      start_time: new Date(now - 3_600_000).toISOString(),
      end_time: new Date(now + 3_600_000).toISOString(),
      page_query: { page_size: 100 },
    });
    const page = (await response.json()) as { tests: { name: string; failure_rate_last_24h: number }[] };
    const flaky = page.tests.find((t) => t.name === "checkout is flaky");
    expect(flaky?.failure_rate_last_24h, JSON.stringify(page)).to.equal(0.5);
  });

  it("keeps the command's exit code when a failure fails every retry, naming it and the flakes", async () => {
    const run = await test({ FAIL_REAL: "1" }, "--retries", "2", "--json");
    expect(run.code, run.stderr).to.equal(3);
    expect(run.stderr).to.include(
      "mainline test: flaky (failed, then passed on a retry): cart › checkout is flaky; still failing after 2 retries (no retries left): cart › totals are right; keeping the command's exit code 3",
    );
    const decision = JSON.parse(run.stdout) as { exitCode: number; retries: { attempts: unknown[] } };
    expect(decision.exitCode).to.equal(3);
    expect(decision.retries.attempts).to.have.length(2);
  });

  it("does not retry when more tests failed than --max-failed-for-retry", async () => {
    const run = await test({ BULK: "4" }, "--retries", "3", "--max-failed-for-retry", "3");
    expect(run.code).to.equal(3);
    expect(run.stdout).to.not.include("attempt 2");
    expect(run.stderr).to.include(
      "still failing after 0 retries (5 tests failed, more than --max-failed-for-retry 3",
    );
  });

  it("stays red when the flake outlasts the retries, and refuses retries out of bounds", async () => {
    const run = await test({ FLAKY_PASSES_AT: "9" }, "--retries", "1");
    expect(run.code).to.equal(3);
    expect(run.stderr).to.include("still failing after 1 retry (no retries left): cart › checkout is flaky");
    const tooMany = await test({}, "--retries", "6");
    expect(tooMany.code).to.equal(2);
    expect(tooMany.stderr).to.include("--retries").and.to.include("must be a whole number from 0 to 5");
  });
});
