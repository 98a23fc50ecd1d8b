import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { eventually, freePortBlock, GitHubDouble, makeTestAppCredentials } from "@mainline/testing";
import { startSystem, waitForHttp, type RunningSystem } from "../../../src/dev/system.js";
import { example, githubRequest, pullRequestComment, through } from "./github-deliveries.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const SECRET = "redelivery webhook secret, long enough";
const INSTALLATION = 957387;
const ACME = { owner: "Codertocat", name: "Hello-World" };
const repo = { host: "github.com", ...ACME };
const app = makeTestAppCredentials(5150);

/**
 * The gateway is killed (SIGKILL, as a node crash or an OOM kill) between a webhook and its effect: the `/svc
 * merge` has reached the queue, its reply is not queued yet, GitHub got no answer. GitHub's redelivery (same
 * X-GitHub-Delivery) to the restarted gateway completes the work: the PR is in the queue once, the reply is
 * posted once, and a further redelivery changes nothing. Every service runs as its own process, as under make dev.
 */
describe("GitHub webhook redelivery after the gateway was killed mid-delivery (whole system, processes)", function () {
  this.timeout(240_000);
  let dataDir: string;
  let system: RunningSystem;
  let double: GitHubDouble;

  const api = async (route: string, body: unknown) => {
    const response = await fetch(`${system.apiUrl}${route}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": system.apiToken },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).to.equal(200);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const post = (request: { headers: Record<string, string>; body: string }) =>
    fetch(`${system.apiUrl}/github/webhooks`, {
      method: "POST",
      headers: request.headers,
      body: request.body,
    });
  const pid = (name: string) => {
    const found = system.processes.get(name)?.pid;
    if (found === undefined) throw new Error(`${name} is not running`);
    return found;
  };

  const mergeComment = (number: number) => pullRequestComment(INSTALLATION, ACME, number, "/svc merge");
  const repliesTo = (number: number) =>
    double
      .calls("issues/create-comment")
      .filter(
        (r) =>
          r.pathParams.issue_number === String(number) &&
          String((r.body as { body: string }).body).includes("joined"),
      );

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "mainline-gh-kill-"));
    double = await GitHubDouble.start({
      app,
      installations: [
        { id: INSTALLATION, account: ACME.owner, repositories: [`${ACME.owner}/${ACME.name}`] },
      ],
    });
    const base = await freePortBlock(7);
    system = await startSystem({
      root,
      dataDir,
      batchRunnerWorkDir: path.join(dataDir, "batch-runner"),
      gatewayPort: base,
      natsPort: base + 1,
      grpcBasePort: base + 1,
      env: {
        LOG_LEVEL: "warn",
        GITHUB_APP_ID: String(app.appId),
        GITHUB_APP_PRIVATE_KEY: app.privateKey,
        GITHUB_WEBHOOK_SECRET: SECRET,
        GITHUB_API_URL: double.url,
      },
      output: (line) => {
        if (process.env.TEST_LOG_LEVEL) console.log(line);
      },
      log: () => undefined,
    });
    expect(await waitForHttp(`${system.apiUrl}/readyz`, 120_000), "every service ready").to.equal(true);
    await api("/github/installations", { installationId: INSTALLATION, accountLogin: ACME.owner });
    await api("/createQueue", { repo, targetBranch: "main" });
    const opened = through(
      example("pull_request", "opened", (e) => e.installation !== undefined),
      INSTALLATION,
      ACME,
    );
    opened.pull_request.base.ref = "main";
    for (const number of [1, 2]) {
      opened.number = number;
      opened.pull_request.number = number;
      opened.pull_request.head.ref = `feature-${number}`;
      const response = await post(await githubRequest({ event: "pull_request", payload: opened }, SECRET));
      expect(response.status, await response.text()).to.equal(200);
    }
  });

  after(async () => {
    for (const name of ["webhooks", "queue-coordinator"]) {
      const p = system?.processes.get(name)?.pid;
      if (p !== undefined) process.kill(p, "SIGCONT");
    }
    await system?.stop();
    await double?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("completes the /svc merge on redelivery: queued once, one reply on the PR, and a further redelivery is a duplicate", async () => {
    const delivery = await githubRequest({ event: "issue_comment", payload: mergeComment(1) }, SECRET);

    // The webhooks service stops answering, so the gateway's delivery hangs after the submit, before the reply.
    const webhooksPid = pid("webhooks");
    process.kill(webhooksPid, "SIGSTOP");
    const gatewayPid = pid("gateway");
    const first = post(delivery).then(
      (r) => `answered ${r.status}`,
      (error: unknown) => `no answer (${(error as Error).message})`,
    );
    await eventually(async () => {
      const pr = await api("/getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
      expect(pr.isCurrentlySubmittedToQueue).to.equal(true);
    }, 30_000);
    process.kill(gatewayPid, "SIGKILL");
    expect(await first).to.match(/^no answer/);
    process.kill(webhooksPid, "SIGCONT");

    // GitHub redelivers to the restarted gateway: the same delivery, byte for byte.
    expect(await waitForHttp(`${system.apiUrl}/readyz`, 60_000), "the gateway is back").to.equal(true);
    expect(pid("gateway")).to.not.equal(gatewayPid);
    const redelivered = await post(delivery);
    const answer = (await redelivered.json()) as { outcome: string; reply?: string };
    expect(redelivered.status).to.equal(200);
    expect(answer).to.deep.include({
      outcome: "applied",
      reply: "#1 joined the merge queue of `main` (priority medium).",
    });
    const again = (await (await post(delivery)).json()) as { outcome: string };
    expect(again.outcome).to.equal("duplicate");

    const queue = await api("/getQueue", { repo, targetBranch: "main" });
    expect(
      (queue.enqueuedPullRequests as { prNumber: number }[]).filter((e) => e.prNumber === 1),
    ).to.have.length(1);
    await eventually(() => {
      const replies = double
        .calls("issues/create-comment")
        .filter(
          (r) =>
            r.pathParams.issue_number === "1" && String((r.body as { body: string }).body).includes("joined"),
        );
      expect(replies, "the reply is posted exactly once").to.have.length(1);
    }, 30_000);
    // Nothing more arrives later: the reply the killed attempt may have queued and the redelivery's are one.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(
      double
        .calls("issues/create-comment")
        .filter((r) => String((r.body as { body: string }).body).includes("joined")),
    ).to.have.length(1);
    double.assertNoViolations();
  });

  it("completes a delivery the gateway died on even when GitHub never redelivers it", async () => {
    const delivery = await githubRequest({ event: "issue_comment", payload: mergeComment(2) }, SECRET);
    const webhooksPid = pid("webhooks");
    process.kill(webhooksPid, "SIGSTOP");
    const gatewayPid = pid("gateway");
    const first = post(delivery).then(
      (r) => `answered ${r.status}`,
      (error: unknown) => `no answer (${(error as Error).message})`,
    );
    await eventually(async () => {
      const pr = await api("/getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 2 } });
      expect(pr.isCurrentlySubmittedToQueue).to.equal(true);
    }, 30_000);
    process.kill(gatewayPid, "SIGKILL");
    expect(await first).to.match(/^no answer/);
    process.kill(webhooksPid, "SIGCONT");

    // The restarted gateway finds the delivery it kept and finishes it (a minute after it arrived): recorded as
    // applied, and its reply (which the killed attempt may already have queued) posted exactly once.
    expect(await waitForHttp(`${system.apiUrl}/readyz`, 60_000), "the gateway is back").to.equal(true);
    await eventually(async () => {
      const status = await fetch(`${system.apiUrl}/github/status`, {
        headers: { "x-api-token": system.apiToken },
      });
      const deliveries = (
        (await status.json()) as { recentDeliveries: { delivery: string; outcome: string }[] }
      ).recentDeliveries;
      expect(deliveries.find((d) => d.delivery === delivery.id)?.outcome).to.equal("applied");
    }, 150_000);
    // The reply leaves through the webhooks service's outbox, so it may follow the record by a moment.
    await eventually(() => expect(repliesTo(2), "the reply is posted").to.have.length(1), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(repliesTo(2), "the reply is posted exactly once").to.have.length(1);
    const queue = await api("/getQueue", { repo, targetBranch: "main" });
    expect(
      (queue.enqueuedPullRequests as { prNumber: number }[]).filter((e) => e.prNumber === 2),
    ).to.have.length(1);
    expect(((await (await post(delivery)).json()) as { outcome: string }).outcome).to.equal("duplicate");
    double.assertNoViolations();
  });
});
