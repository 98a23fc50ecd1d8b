import { expect } from "chai";
import { callUnary, createGrpcClient, RemoteCallError } from "@mainline/kit/grpc/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import {
  example,
  githubRequest,
  pullRequestComment,
  pullRequestDelivery,
  through,
  type Delivery,
  type DeliveryAnswer,
} from "./github-deliveries.js";

const SECRET = "the App's webhook secret, 32 chars";
const INSTALLATION = 957387;
const ACME = { owner: "Codertocat", name: "Hello-World" };
const repo = { host: "github.com", ...ACME };

/** The recorded pull_request.opened example as PR `number` onto `base`, through the installation. */
const pullRequest = (number: number, base = "main", action = "opened") =>
  pullRequestDelivery(INSTALLATION, ACME, number, { base, action });

/** The recorded issue_comment.created example as a comment on PR `number`. */
const comment = (body: string, number: number) => pullRequestComment(INSTALLATION, ACME, number, body);

describe("GitHub App webhooks: POST /v1/github/webhooks (signature only, installation -> organisation)", function () {
  this.timeout(60_000);
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let off: GatewayHarness;
  let admin: string;
  let member: string;
  let rivalAdmin: string;
  let q: QueueCoordinatorClient;

  const deliver = async (d: Delivery, harness = gw) => {
    const request = await githubRequest(d, SECRET);
    const response = await harness.post("/github/webhooks", request.body, undefined, request.headers);
    return { id: request.id, response };
  };
  const ok = async (d: Delivery): Promise<DeliveryAnswer> => {
    const { response } = await deliver(d);
    const text = await response.text();
    expect(response.status, text).to.equal(200);
    return JSON.parse(text) as DeliveryAnswer;
  };
  const facts = (org: string, number: number) =>
    callUnary(q.getPullRequestFacts.bind(q), { org, repo, number }).catch((e: unknown) => {
      if (e instanceof RemoteCallError && e.code === "NOT_FOUND") return undefined;
      throw e;
    });
  const submitted = async (number: number, token = member) => {
    const response = await gw.post(
      "/getSubmittedPullRequest",
      { repo, targetBranch: "main", pr: { number } },
      token,
    );
    return {
      status: response.status,
      body: (await response.json().catch(() => ({}))) as Record<string, unknown>,
    };
  };
  const connect = (body: unknown, token = admin) => gw.post("/github/installations", body, token);

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    q = createGrpcClient(QueueCoordinatorClient, coordinator.address);
    gw = await GatewayHarness.start({ queue: coordinator.address }, { github: { webhookSecret: SECRET } });
    off = await GatewayHarness.start({ queue: coordinator.address });
    await gw.auth.createOrganization("acme", "acme");
    admin = (await gw.auth.createToken("acme", "admin", true)).token;
    member = (await gw.auth.createToken("acme", "member", false)).token;
    await gw.auth.createOrganization("rival", "rival");
    rivalAdmin = (await gw.auth.createToken("rival", "admin", true)).token;
    expect((await gw.post("/createQueue", { repo, targetBranch: "main" }, member)).status).to.equal(200);
  });
  after(async () => {
    q?.close();
    await gw?.stop();
    await off?.stop();
    await coordinator?.stop();
    await coordinator?.nats.stop();
  });

  describe("authentication is the signature alone", () => {
    it("answers 404 'not configured' when the gateway has no GitHub App", async () => {
      const { response } = await deliver({ event: "pull_request", payload: pullRequest(1) }, off);
      expect(response.status).to.equal(404);
      expect(await response.text()).to.match(/GitHub App is not configured.*GITHUB_WEBHOOK_SECRET/);
    });

    for (const [what, d] of [
      ["unsigned", { secret: null }],
      ["signed with another secret", { secret: "another secret, also long enough" }],
      ["changed after signing", { tamper: (b: string) => b.replace('"opened"', '"closed"') }],
    ] as const) {
      it(`answers 401 to a delivery ${what}, and changes nothing`, async () => {
        await connect({ installationId: INSTALLATION });
        const { response } = await deliver({ event: "pull_request", payload: pullRequest(40), ...d });
        expect(response.status).to.equal(401);
        expect(response.headers.get("content-type")).to.match(/^application\/plain-text/);
        expect(await response.text()).to.match(
          /^Unauthorized: the X-Hub-Signature-256 (header is missing|signature does not match)/,
        );
        expect(await facts("acme", 40)).to.equal(undefined);
      });
    }

    it("needs no API token, and an API token does not replace the signature", async () => {
      const request = await githubRequest(
        { event: "pull_request", payload: pullRequest(41), secret: null },
        SECRET,
      );
      const response = await gw.post("/github/webhooks", request.body, admin, request.headers);
      expect(response.status).to.equal(401);
    });

    it("answers 400 naming a missing X-GitHub-Event or X-GitHub-Delivery header", async () => {
      const request = await githubRequest({ event: "pull_request", payload: pullRequest(42) }, SECRET);
      for (const name of ["x-github-event", "x-github-delivery"]) {
        const headers = { ...request.headers };
        delete headers[name];
        const response = await gw.post("/github/webhooks", request.body, undefined, headers);
        expect(response.status).to.equal(400);
        expect(await response.text()).to.match(new RegExp(`^${name}: the header is required`));
      }
      const bad = { ...request.headers, "x-github-delivery": "../../etc/passwd" };
      const response = await gw.post("/github/webhooks", request.body, undefined, bad);
      expect(response.status).to.equal(400);
    });

    it("answers 400 naming the field when a signed payload breaks a bound", async () => {
      const p = pullRequest(43);
      p.pull_request.title = "t".repeat(5000);
      const { response } = await deliver({ event: "pull_request", payload: p });
      expect(response.status).to.equal(400);
      expect(await response.text()).to.match(/^pull_request\.title: must be at most 1024 characters/);
    });
  });

  describe("installation -> organisation mapping", () => {
    it("records an installation GitHub tells of before anyone connects it, and shows it to admins as unclaimed", async () => {
      const created = through(example("installation", "created"), 5550001);
      created.installation.account.login = "NewCo";
      const answer = await ok({ event: "installation", payload: created });
      expect(answer.outcome).to.equal("applied");
      expect(answer.reason).to.match(/not yet connected/);
      const status = (await (await gw.get("/github/status", admin)).json()) as {
        unclaimedInstallations: { installationId: number; accountLogin: string }[];
      };
      expect(status.unclaimedInstallations.map((i) => [i.installationId, i.accountLogin])).to.deep.include([
        5550001,
        "NewCo",
      ]);
      const memberView = (await (await gw.get("/github/status", member)).json()) as Record<string, unknown>;
      expect(memberView).not.to.have.property("unclaimedInstallations");
    });

    it("ignores events of an installation no organisation has connected, saying how to connect it", async () => {
      const p = through(pullRequest(44), 5550002, ACME);
      const answer = await ok({ event: "pull_request", payload: p });
      expect(answer.outcome).to.equal("ignored");
      expect(answer.reason).to.contain("mainline github connect 5550002");
      expect(await facts("acme", 44)).to.equal(undefined);
    });

    it("connects an installation for an admin; a second organisation's claim is 409; an ordinary token is 403", async () => {
      const mine = await connect({ installationId: INSTALLATION, accountLogin: "Codertocat" });
      expect(mine.status, await mine.clone().text()).to.equal(200);
      const body = (await mine.json()) as { installation: { org: string; host: string } };
      expect(body.installation).to.include({ org: "acme", host: "github.com" });
      expect(
        (await connect({ installationId: INSTALLATION })).status,
        "the same organisation again",
      ).to.equal(200);
      const rival = await connect({ installationId: INSTALLATION }, rivalAdmin);
      expect(rival.status).to.equal(409);
      expect(await rival.text()).to.match(/already connected to another organisation/);
      expect((await connect({ installationId: 777 }, member)).status).to.equal(403);
    });

    it("refuses bad installation ids with 400 naming the field", async () => {
      for (const installationId of [0, -1, 1.5, "12", 2 ** 53]) {
        const response = await connect({ installationId });
        expect(response.status, JSON.stringify(installationId)).to.equal(400);
        expect(await response.text()).to.match(/^installationId: /);
      }
    });

    it("acts for the organisation the installation is connected to, on repositories of its account only", async () => {
      expect((await ok({ event: "pull_request", payload: pullRequest(7) })).outcome).to.equal("applied");
      expect((await facts("acme", 7))?.headBranch).to.equal("feature-7");
      expect(await facts("rival", 7)).to.equal(undefined);
      // A repository of another account, through this installation, is not this organisation's to act on.
      const stray = through(pullRequest(8), INSTALLATION, { owner: "someone-else", name: "Hello-World" });
      const answer = await ok({ event: "pull_request", payload: stray });
      expect(answer.outcome).to.equal("ignored");
      expect(answer.reason).to.match(/does not belong to Codertocat/);
    });

    it("keeps the installation's repositories from installation_repositories events", async () => {
      const added = through(example("installation_repositories", "added"), INSTALLATION);
      expect((await ok({ event: "installation_repositories", payload: added })).outcome).to.equal("applied");
      const status = (await (await gw.get("/github/status", member)).json()) as {
        configured: boolean;
        installations: { installationId: number; repositories: string[]; repositorySelection: string }[];
        recentDeliveries: { event: string; outcome: string }[];
      };
      expect(status.configured).to.equal(true);
      const mine = status.installations.find((i) => i.installationId === INSTALLATION);
      expect(mine?.repositorySelection).to.equal("selected");
      expect(mine?.repositories).to.include("codertocat/space");
      expect(status.recentDeliveries[0]).to.include({
        event: "installation_repositories",
        outcome: "applied",
      });
    });

    it("stops acting for a suspended installation and resumes when it is unsuspended", async () => {
      const suspend = through(example("installation", "suspend"), INSTALLATION);
      await ok({ event: "installation", payload: suspend });
      expect((await ok({ event: "pull_request", payload: pullRequest(9) })).reason).to.match(/suspended/);
      const unsuspend = through(example("installation", "unsuspend"), INSTALLATION);
      await ok({ event: "installation", payload: unsuspend });
      expect((await ok({ event: "pull_request", payload: pullRequest(9) })).outcome).to.equal("applied");
    });
  });

  describe("/svc comment commands and redelivery", () => {
    it("a signed /svc merge submits the PR once; the same delivery again is a duplicate that changes nothing", async () => {
      await ok({ event: "pull_request", payload: pullRequest(12) });
      const first = await deliver({
        event: "issue_comment",
        payload: comment("/svc merge --priority=high", 12),
      });
      const answer = (await first.response.json()) as DeliveryAnswer;
      expect(answer).to.include({ outcome: "applied" });
      expect(answer.reply).to.equal("#12 joined the merge queue of `main` (priority high).");
      const before = await submitted(12);
      expect(before.body).to.include({ isCurrentlySubmittedToQueue: true, priorityName: "high" });

      const again = await ok({
        event: "issue_comment",
        payload: comment("/svc merge --priority=high", 12),
        id: first.id,
      });
      expect(again.outcome).to.equal("duplicate");
      expect((await submitted(12)).body).to.deep.equal(before.body);

      // A new comment (another delivery) is a new command: the queue refuses it, and says why.
      const second = await ok({ event: "issue_comment", payload: comment("/svc merge", 12) });
      expect(second.outcome).to.equal("refused");
      expect(second.reply).to.match(/already in the queue/);
    });

    it("refuses a /svc command from a commenter who is not an owner, member or collaborator, or whose association is missing", async () => {
      await ok({ event: "pull_request", payload: pullRequest(14) });
      for (const association of ["NONE", "CONTRIBUTOR", "MANNEQUIN", undefined]) {
        const p = comment("/svc merge", 14);
        if (association === undefined) delete p.comment.author_association;
        else p.comment.author_association = association;
        const answer = await ok({ event: "issue_comment", payload: p });
        expect(answer.outcome, String(association)).to.equal("refused");
        expect(answer.reply).to.match(
          /only the repository's owners, members of its organisation and its collaborators/,
        );
      }
      expect((await submitted(14)).status).to.equal(404);
      for (const association of ["MEMBER", "COLLABORATOR"]) {
        const p = comment(association === "MEMBER" ? "/svc merge" : "/svc cancel", 14);
        p.comment.author_association = association;
        expect((await ok({ event: "issue_comment", payload: p })).outcome, association).to.equal("applied");
      }
    });

    it("a delivery whose first attempt changed the queue but was never answered completes as that attempt would have", async () => {
      await ok({ event: "pull_request", payload: pullRequest(13) });
      const request = await githubRequest(
        { event: "issue_comment", payload: comment("/svc merge", 13) },
        SECRET,
      );
      // What the first attempt did before the gateway died: the submit, keyed by the delivery id.
      await callUnary(q.submitPullRequest.bind(q), {
        queue: { org: "acme", repo, targetBranch: "main" },
        prNumber: 13,
        noBatch: false,
        idempotencyKey: request.id,
      });
      const response = await gw.post("/github/webhooks", request.body, undefined, request.headers);
      const answer = (await response.json()) as DeliveryAnswer;
      expect(answer).to.include({
        outcome: "applied",
        reply: "#13 joined the merge queue of `main` (priority medium).",
      });
      expect((await submitted(13)).body).to.include({ isCurrentlySubmittedToQueue: true });
    });

    it("a redelivered /svc cancel whose first attempt already took the PR out answers as applied", async () => {
      const request = await githubRequest(
        { event: "issue_comment", payload: comment("/svc cancel", 13) },
        SECRET,
      );
      await callUnary(q.cancelPullRequest.bind(q), {
        queue: { org: "acme", repo, targetBranch: "main" },
        prNumber: 13,
        idempotencyKey: request.id,
      });
      const response = await gw.post("/github/webhooks", request.body, undefined, request.headers);
      expect(((await response.json()) as DeliveryAnswer).outcome).to.equal("applied");
      expect((await submitted(13)).body).to.include({ state: "CANCELLED" });
    });
  });

  describe("GitHub Enterprise Server", () => {
    let ghes: GatewayHarness;
    before(async () => {
      ghes = await GatewayHarness.start(
        { queue: coordinator.address },
        { github: { webhookSecret: SECRET, apiUrl: "https://ghe.example.com/api/v3" } },
      );
      await ghes.auth.createOrganization("enterprise", "enterprise");
    });
    after(() => ghes?.stop());

    it("names repositories by the Enterprise Server's host, from GITHUB_API_URL and the payloads", async () => {
      const token = (await ghes.auth.createToken("enterprise", "admin", true)).token;
      const connected = await ghes.post(
        "/github/installations",
        { installationId: 31, accountLogin: "corp" },
        token,
      );
      expect(((await connected.json()) as { installation: { host: string } }).installation.host).to.equal(
        "ghe.example.com",
      );
      const p = through(pullRequest(5), 31, { owner: "corp", name: "app", host: "ghe.example.com" });
      const request = await githubRequest({ event: "pull_request", payload: p }, SECRET);
      const response = await ghes.post("/github/webhooks", request.body, undefined, request.headers);
      expect(((await response.json()) as DeliveryAnswer).outcome).to.equal("applied");
      const recorded = await callUnary(q.getPullRequestFacts.bind(q), {
        org: "enterprise",
        repo: { host: "ghe.example.com", owner: "corp", name: "app" },
        number: 5,
      });
      expect(recorded.headBranch).to.equal("feature-5");
      // The same repository path on github.com is not this installation's.
      const elsewhere = through(pullRequest(6), 31, { owner: "corp", name: "app" });
      const other = await githubRequest({ event: "pull_request", payload: elsewhere }, SECRET);
      const refused = (await (
        await ghes.post("/github/webhooks", other.body, undefined, other.headers)
      ).json()) as DeliveryAnswer;
      expect(refused).to.include({ outcome: "ignored" });
      expect(refused.reason).to.match(/is not on ghe\.example\.com/);
    });
  });

  describe("CI statuses and pushes", () => {
    it("ignores CI results on commits that are not the head of a test run in progress", async () => {
      const suite = through(example("check_suite", "completed"), INSTALLATION, ACME);
      const answer = await ok({ event: "check_suite", payload: suite });
      expect(answer.outcome).to.equal("ignored");
      expect(answer.reason).to.match(/is not the head of a test run in progress/);
      for (const event of ["check_run", "status", "workflow_run"]) {
        const a = await ok({ event, payload: through(example(event), INSTALLATION, ACME) });
        expect(a.outcome, event).to.equal("ignored");
      }
    });

    it("ignores pushes to tags and to branches no queue targets", async () => {
      const tag = await ok({
        event: "push",
        payload: through(
          example("push", undefined, (e) => String(e.ref).startsWith("refs/tags/")),
          INSTALLATION,
          ACME,
        ),
      });
      expect(tag.reason).to.match(/is not a branch/);
      const push = through(
        example("push", undefined, (e) => String(e.ref).startsWith("refs/heads/")),
        INSTALLATION,
        ACME,
      );
      push.ref = "refs/heads/not-a-queue";
      push.deleted = false;
      push.after = "a".repeat(40);
      const answer = await ok({ event: "push", payload: push });
      expect(answer).to.include({ outcome: "ignored", reason: "no queue targets not-a-queue" });
    });

    it("ignores events Mainline does not act on, and records them as handled", async () => {
      const answer = await ok({
        event: "star",
        payload: through({ action: "created", repository: pullRequest(1).repository }, INSTALLATION),
      });
      expect(answer).to.include({ outcome: "ignored", reason: "Mainline does not act on star events" });
    });
  });
});
