import { expect } from "chai";
import { eventually, freePort, NatsServer } from "@mainline/testing";
import type { RepoRef } from "@mainline/proto/common";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { example, githubRequest, pullRequestComment, through } from "./github-deliveries.js";

const SECRET = "retries webhook secret, long enough";
const INSTALLATION = 957387;
const ACME = { owner: "Codertocat", name: "Hello-World" };
const repo = { host: "github.com", ...ACME };

/**
 * GitHub does not retry a failed delivery by itself. A delivery that meets an unavailable coordinator is kept by
 * the gateway, answered `queued`, and completed by the gateway's own retries once the coordinator is back: the PR
 * is queued and its reply posted, each once.
 */
describe("GitHub deliveries kept and retried by the gateway while a service is unavailable", function () {
  this.timeout(90_000);
  let nats: NatsServer;
  let port: number;
  let coordinator: CoordinatorHarness | undefined;
  let gw: GatewayHarness;
  let admin: string;
  const posted: { prNumber: number; body: string; idempotencyKey: string; repo: RepoRef }[] = [];

  before(async () => {
    nats = await NatsServer.start();
    port = await freePort();
    coordinator = await CoordinatorHarness.startOn(nats, { port });
    gw = await GatewayHarness.start(
      { queue: `127.0.0.1:${port}` },
      {
        nats,
        github: {
          webhookSecret: SECRET,
          retryPollMs: 100,
          replies: { post: (reply) => Promise.resolve(void posted.push(reply)) },
        },
      },
    );
    await gw.auth.createOrganization("acme", "acme");
    admin = (await gw.auth.createToken("acme", "admin", true)).token;
    expect((await gw.post("/github/installations", { installationId: INSTALLATION }, admin)).status).to.equal(
      200,
    );
    expect((await gw.post("/createQueue", { repo, targetBranch: "main" }, admin)).status).to.equal(200);
    const opened = through(
      example("pull_request", "opened", (e) => e.installation !== undefined),
      INSTALLATION,
      ACME,
    );
    opened.number = 1;
    opened.pull_request.number = 1;
    opened.pull_request.base.ref = "main";
    const request = await githubRequest({ event: "pull_request", payload: opened }, SECRET);
    expect((await gw.post("/github/webhooks", request.body, undefined, request.headers)).status).to.equal(
      200,
    );
  });
  after(async () => {
    await gw?.stop();
    await coordinator?.stop();
    await nats?.stop();
  });

  it("answers `queued` while the coordinator is down, then queues the PR and posts the reply once", async () => {
    await coordinator!.stop();
    coordinator = undefined;
    const comment = pullRequestComment(INSTALLATION, ACME, 1, "/svc merge");
    const request = await githubRequest({ event: "issue_comment", payload: comment }, SECRET);
    const response = await gw.post("/github/webhooks", request.body, undefined, request.headers);
    const answer = (await response.json()) as { outcome: string; reason: string };
    expect(response.status).to.equal(200);
    expect(answer.outcome).to.equal("queued");
    expect(answer.reason).to.match(/Mainline tries again by itself$/);

    // Back on the same address and store: the gateway completes the delivery without GitHub redelivering it.
    coordinator = await CoordinatorHarness.startOn(nats, { port });
    await eventually(() => {
      expect(posted.map((p) => p.body)).to.deep.equal([
        "#1 joined the merge queue of `main` (priority medium).",
      ]);
    }, 60_000);
    const pr = await gw.post(
      "/getSubmittedPullRequest",
      { repo, targetBranch: "main", pr: { number: 1 } },
      admin,
    );
    expect(await pr.json()).to.include({ isCurrentlySubmittedToQueue: true });
    expect(posted[0]).to.include({ prNumber: 1, idempotencyKey: request.id });
    const again = await gw.post("/github/webhooks", request.body, undefined, request.headers);
    expect(((await again.json()) as { outcome: string }).outcome).to.equal("duplicate");
    expect(posted).to.have.length(1);
  });
});
