import { expect } from "chai";
import { eventually, git } from "@mainline/testing";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { QueueSystem } from "@mainline/harness/queue-system";
import { LocalRemote } from "../../src/demo/local-remote.js";

const repo = { host: "git.example.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };
/** More than the 4000 characters a result message carries: the first lines are only in the kept output. */
const NOISE_LINES = 3000;

/**
 * Issue 15 item 10: why did my PR fail? A COMMAND run that fails keeps its output tail, served at
 * /v1/test-runs/{id}/output to the run's own organisation, and the PR and the run link to it.
 */
describe("a failed COMMAND run's output is kept and linked (coordinator + batch-runner + gateway + real git)", function () {
  this.timeout(120_000);
  let dir: string;
  let remote: string;
  let system: QueueSystem;
  let otherToken: string;

  const call = (route: string, body: unknown) => system.call(route, body);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-output-"));
    const local = await LocalRemote.create(dir, {
      "test.sh": `echo "first line of the output"\nseq 1 ${NOISE_LINES}\necho "divides: expected 2, got 3" >&2\nexit 1\n`,
    });
    await local.pushPullRequest(1, "feature-1", "Change 1", { "app.txt": "two\n" });
    remote = local.remoteDir;

    system = await QueueSystem.start({
      workDir: path.join(dir, "runner"),
      jobConcurrency: 1,
      maxRunSeconds: 120,
    });
    otherToken = await system.gw.organization("globex");
  });

  after(async () => {
    await system?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the output to the run's organisation only, and the failed PR and its run link to it", async () => {
    await call("/createQueue", queue);
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh" },
    });
    await system.pullRequestOpened(repo, 1, git(remote, "rev-parse", "refs/pull/1/head"));
    await call("/submitPullRequest", { ...queue, pr: { number: 1 } });
    const pr = await eventually(async () => {
      const answer = await call("/getSubmittedPullRequest", { ...queue, pr: { number: 1 } });
      expect(answer.state).to.equal("FAILED");
      return answer;
    }, 60_000);

    const url = pr.failureDetailsUrl as string;
    const testRunId = /\/v1\/test-runs\/([^/]+)\/output$/.exec(url)?.[1];
    expect(url.startsWith(system.gw.url), url).to.equal(true);
    expect(testRunId, url).to.be.a("string");
    const details = await call("/getMergeQueueTestingDetails", { ...queue, testRunId });
    expect(details.status).to.equal("FAILED");
    expect(details.statusChecks).to.deep.equal([{ context: "mainline/test-command", url, state: "failure" }]);

    const output = await fetch(url, { headers: { "x-api-token": system.token } });
    expect(output.status).to.equal(200);
    expect(output.headers.get("content-type")).to.match(/^text\/plain/);
    const text = await output.text();
    expect(text).to.contain("first line of the output").and.to.contain("divides: expected 2, got 3");
    expect(text).to.contain(`\n${NOISE_LINES}\n`);

    // Another organisation, an unknown run and no token: nothing about the run is revealed.
    const foreign = await fetch(url, { headers: { "x-api-token": otherToken } });
    expect(foreign.status).to.equal(404);
    const unknown = await fetch(url.replace(testRunId!, "run-999_0000000000"), {
      headers: { "x-api-token": system.token },
    });
    expect(unknown.status).to.equal(404);
    expect((await fetch(url)).status).to.equal(401);
    // A malformed id is refused, naming the field.
    const bad = await fetch(url.replace(testRunId!, "x".repeat(200)), {
      headers: { "x-api-token": system.token },
    });
    expect(bad.status).to.equal(400);
    expect(await bad.text()).to.contain("testRunId");
  });
});
