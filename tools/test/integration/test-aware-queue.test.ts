import { expect } from "chai";
import { git, NatsServer } from "@mainline/testing";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { callUnary } from "@mainline/kit/grpc/index";
import { FlakyAnalyticsClient, ResultContext } from "@mainline/proto/flaky";
import { testId } from "@mainline/junit";
import { QueueSystem } from "@mainline/harness/queue-system";
import { FlakyHarness } from "@mainline/harness/flaky-harness";

const repo = { host: "git.example.com", owner: "acme", name: "shop" };
const queue = { repo, targetBranch: "main" };
const idOf = (name: string) => testId({ org: "acme", repo, classname: "shop", parent: "shop", name });

/**
 * The test command of the repository: one JUnit case per test. "quarantined" fails while the file Q exists,
 * "flaky" fails on its first run after the file F appears (a counter outside the worktree), "stable" fails while
 * BAD exists, "target" while TARGET_BROKEN exists.
 */
const testScript = (
  counterDir: string,
) => `case_() { if [ "$2" = fail ]; then echo "<testcase classname=\\"shop\\" name=\\"$1\\"><failure message=\\"no\\"/></testcase>"; failed=1; else echo "<testcase classname=\\"shop\\" name=\\"$1\\"/>"; fi; }
failed=0
mkdir -p reports
flaky=pass
if [ -e F ] && [ ! -e "${counterDir}/flaky-failed-once" ]; then touch "${counterDir}/flaky-failed-once"; flaky=fail; fi
{
  echo '<testsuite name="shop">'
  case_ quarantined $([ -e Q ] && echo fail)
  case_ flaky $flaky
  case_ stable $([ -e BAD ] && echo fail)
  case_ target $([ -e TARGET_BROKEN ] && echo fail)
  echo '</testsuite>'
} > reports/junit.xml
exit $failed
`;

const report = (cases: Record<string, "pass" | "fail">) =>
  `<testsuite name="shop">${Object.entries(cases)
    .map(([name, r]) =>
      r === "fail"
        ? `<testcase classname="shop" name="${name}"><failure message="no"/></testcase>`
        : `<testcase classname="shop" name="${name}"/>`,
    )
    .join("")}</testsuite>`;

describe("the merge queue uses what Mainline knows about tests (real git, a COMMAND runner writing JUnit)", function () {
  this.timeout(240_000);
  let dir: string;
  let remote: string;
  let work: string;
  let nats: NatsServer;
  let flakyHarness: FlakyHarness;
  let flaky: FlakyAnalyticsClient;
  let system: QueueSystem;
  let commit = 0;

  const call = (route: string, body: unknown) => system.call(route, body);
  const upload = (cases: Record<string, "pass" | "fail">, commitSha = "c".repeat(40)) =>
    callUnary(flaky.uploadTestResults.bind(flaky), {
      org: "acme",
      repo,
      commitSha,
      branch: "main",
      variant: "",
      jobName: "ci",
      runStartedAt: new Date(Date.now() - 60_000 + commit++),
      context: ResultContext.CI,
      junitXml: [report(cases)],
      impactedPrNumbers: [],
    });

  /** A PR branch off main adding `files`, pushed as refs/pull/N/head, and announced to the queue. */
  const openPullRequest = async (n: number, files: Record<string, string>) => {
    git(work, "fetch", "-q", "origin", "main");
    git(work, "checkout", "-q", "-B", `feature-${n}`, "origin/main");
    for (const [file, content] of Object.entries(files)) await writeFile(path.join(work, file), content);
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", `Change ${n}`);
    git(work, "push", "-q", "origin", `HEAD:refs/heads/feature-${n}`, `HEAD:refs/pull/${n}/head`);
    await system.pullRequestOpened(repo, n, git(work, "rev-parse", "HEAD"));
    await call("/submitPullRequest", { ...queue, pr: { number: n } });
  };
  const pr = (n: number) => call("/getSubmittedPullRequest", { ...queue, pr: { number: n } });
  const until = async <T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const got = await probe();
      if (got !== undefined) return got;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const ended = (n: number) =>
    until(`PR ${n} to end`, async () => {
      const got = await pr(n);
      return ["MERGED", "FAILED", "CANCELLED"].includes(got.state as string) ? got : undefined;
    });
  const details = (got: Record<string, unknown>) =>
    (got.history as { detail?: string }[]).map((h) => h.detail).filter(Boolean);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-test-aware-"));
    remote = path.join(dir, "remote.git");
    work = path.join(dir, "work");
    const counterDir = path.join(dir, "counters");
    await mkdir(counterDir);
    git(dir, "init", "--bare", "--initial-branch=main", remote);
    git(dir, "clone", "-q", remote, work);
    git(work, "checkout", "-q", "-b", "main");
    await writeFile(path.join(work, "test.sh"), testScript(counterDir));
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "initial");
    git(work, "push", "-q", "origin", "main");

    // flaky-analytics on the coordinator's NATS: it ingests the queue's JUnit and answers the coordinator's question.
    nats = await NatsServer.start();
    flakyHarness = await FlakyHarness.startOn(nats);
    flaky = flakyHarness.client;
    system = await QueueSystem.start({
      workDir: path.join(dir, "runner"),
      jobConcurrency: 2,
      maxRunSeconds: 120,
      coordinator: { nats, flakyAnalyticsAddress: flakyHarness.address },
    });
    await call("/createQueue", { ...queue, concurrency: 1, batch: false });
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh", junitGlobs: ["reports/*.xml"] },
    });

    // What the target's own CI told flaky-analytics: "flaky" failed and passed on one commit (flaky), the rest
    // passed; quarantining is on and "quarantined" is forced into quarantine.
    await upload({ quarantined: "pass", flaky: "fail", stable: "pass", target: "pass" });
    await upload({ quarantined: "pass", flaky: "pass", stable: "pass", target: "pass" });
    await callUnary(flaky.updateRepositorySettings.bind(flaky), {
      org: "acme",
      repo,
      quarantiningEnabled: true,
      brokenAfterConsecutiveFailures: 2,
    });
    await flakyHarness.quarantine("acme", repo, [idOf("quarantined")]);
  });

  after(async () => {
    await system?.stop();
    await flakyHarness?.stop();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("merges a PR whose only failure is a quarantined test, and its history says which test was ignored", async () => {
    await openPullRequest(1, { Q: "breaks the quarantined test\n" });
    const done = await ended(1);
    expect(done.state, JSON.stringify(done)).to.equal("MERGED");
    expect(details(done)).to.include("passed; failures ignored: quarantined tests shop › quarantined");
  });

  it("retries a run that failed only on a known flaky test once, and merges when the retry passes", async () => {
    await openPullRequest(2, { F: "arms the flaky test\n" });
    const done = await ended(2);
    expect(done.state, JSON.stringify(done)).to.equal("MERGED");
    const said = details(done);
    expect(said).to.include("known flaky tests failed: shop › flaky; retrying once in place");
    // main holds PR 1's change, so the quarantined test fails along: both are said.
    expect(
      said.some((d) => d?.startsWith("retry after known flaky tests shop › flaky failed: passed")),
    ).to.equal(true);
  });

  it("still finds and fails a genuinely bad PR", async () => {
    await openPullRequest(3, { BAD: "breaks the stable test\n" });
    const done = await ended(3);
    expect(done.state).to.equal("FAILED");
    expect(done.failureReason).to.equal("TESTS_FAILED");
  });

  it("counts an external CI's failed report as passed when its JUnit fails only a quarantined test", async () => {
    // A repository without a connection: its CI reports each run with reportTestRun and its JUnit.
    const api = { host: "git.example.com", owner: "acme", name: "api" };
    const apiQueue = { repo: api, targetBranch: "main" };
    const apiReport = (result: "pass" | "fail") => report({ quarantined: result, stable: "pass" });
    await callUnary(flaky.uploadTestResults.bind(flaky), {
      org: "acme",
      repo: api,
      commitSha: "f".repeat(40),
      branch: "main",
      variant: "",
      jobName: "ci",
      runStartedAt: new Date(Date.now() - 30_000),
      context: ResultContext.CI,
      junitXml: [apiReport("pass")],
      impactedPrNumbers: [],
    });
    await flakyHarness.quarantine("acme", api, [
      testId({ org: "acme", repo: api, classname: "shop", parent: "shop", name: "quarantined" }),
    ]);
    await call("/createQueue", { ...apiQueue, concurrency: 1, batch: false });
    await system.pullRequestOpened(api, 7, "7".repeat(40));
    await call("/submitPullRequest", { ...apiQueue, pr: { number: 7 } });
    const testRunId = await until("PR 7's run", async () => {
      const q = await call("/getQueue", apiQueue);
      return (q.enqueuedPullRequests as { testRunId?: string }[])[0]?.testRunId;
    });
    await call("/reportTestRun", { testRunId, passed: false, junit: [apiReport("fail")] });
    const done = await until("PR 7 to merge", async () => {
      const got = await call("/getSubmittedPullRequest", { ...apiQueue, pr: { number: 7 } });
      return got.state === "MERGED" ? got : undefined;
    });
    expect(details(done)).to.include("passed; failures ignored: quarantined tests shop › quarantined");
  });

  it("with an external CI, fails a lone PR on the run built on it, while the PR behind is tested in its own run", async () => {
    // Batches of one, two at a time: #11's run, and #12's on top of it. The CI reads what to test from getQueue.
    const web = { host: "git.example.com", owner: "acme", name: "web" };
    const webQueue = { repo: web, targetBranch: "main" };
    await call("/createQueue", { ...webQueue, concurrency: 2, batch: true, batchingMinSize: 1 });
    const runOf = async (n: number) => {
      const q = await call("/getQueue", webQueue);
      return (q.enqueuedPullRequests as { prNumber: number; testRunId?: string }[]).find(
        (e) => e.prNumber === n,
      )?.testRunId;
    };
    for (const n of [11, 12]) {
      await system.pullRequestOpened(web, n, String(n % 10).repeat(40));
      await call("/submitPullRequest", { ...webQueue, pr: { number: n } });
    }
    const own = await until("#11's run", () => runOf(11));
    const builtOnIt = await until("#12's run", () => runOf(12));
    const failing = report({ stable: "fail" });
    await call("/reportTestRun", { testRunId: own, passed: false, junit: [failing] });

    // #12 restarts without #11 and shows its new run; the one built on #11 goes on as #11's witness.
    const restarted = await until("#12's new run", async () => {
      const id = await runOf(12);
      return id !== undefined && id !== builtOnIt ? id : undefined;
    });
    const inFlight = (await call("/getQueue", webQueue)).testRunsInFlight as {
      id: string;
      prNumbers: number[];
    }[];
    expect(inFlight.find((r) => r.id === builtOnIt)?.prNumbers).to.deep.equal([11, 12]);

    await call("/reportTestRun", { testRunId: builtOnIt, passed: false, junit: [failing] });
    const failed = await until("#11 to fail", async () => {
      const got = await call("/getSubmittedPullRequest", { ...webQueue, pr: { number: 11 } });
      return got.state === "FAILED" ? got : undefined;
    });
    expect(failed.failureReason).to.equal("TESTS_FAILED");
    expect(details(failed)).to.include("the run built on it (with #12) failed a test its own run failed");
    await call("/reportTestRun", { testRunId: restarted, passed: true });
    const merged = await until("#12 to merge", async () => {
      const got = await call("/getSubmittedPullRequest", { ...webQueue, pr: { number: 12 } });
      return got.state === "MERGED" ? got : undefined;
    });
    expect(merged.state).to.equal("MERGED");
  });

  it("holds the queue for a test broken on the target without failing the PR, and resumes when it is fixed", async () => {
    // main breaks outside the queue, and its own CI says so twice (broken after 2 consecutive failures).
    git(work, "fetch", "-q", "origin", "main");
    git(work, "checkout", "-q", "-B", "main", "origin/main");
    await writeFile(path.join(work, "TARGET_BROKEN"), "main is broken\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "break main");
    git(work, "push", "-q", "origin", "main");
    await upload({ target: "fail" }, "d".repeat(40));
    await upload({ target: "fail" }, "d".repeat(40));

    await openPullRequest(4, { "pr-4.txt": "an innocent change\n" });
    const held = await until("the queue to hold for the broken target", async () => {
      const q = await call("/getQueue", queue);
      return q.targetBroken ? (q.targetBroken as { reason: string; testName: string }) : undefined;
    });
    expect(held.testName).to.equal("shop › target");
    expect(held.reason).to.match(/^target broken: test shop › target failing on main since /);
    expect((await pr(4)).state).to.not.equal("FAILED");

    // main is fixed, and its CI passes the test: the queue resumes by itself and the PR merges.
    git(work, "checkout", "-q", "main");
    git(work, "rm", "-q", "TARGET_BROKEN");
    git(work, "commit", "-q", "-m", "fix main");
    git(work, "push", "-q", "origin", "main");
    await upload({ target: "pass" }, "e".repeat(40));
    const done = await ended(4);
    expect(done.state, JSON.stringify(done)).to.equal("MERGED");
    expect((await call("/getQueue", queue)).targetBroken).to.equal(undefined);
  });
});
