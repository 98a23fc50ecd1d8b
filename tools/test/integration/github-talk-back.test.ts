import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  eventually,
  git,
  GitHubDouble,
  makeTestAppCredentials,
  serverError,
  type RecordedRequest,
} from "@mainline/testing";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { callUnary, createGrpcClient } from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { QueueSystem } from "@mainline/harness/queue-system";
import { LocalRemote } from "../../src/demo/local-remote.js";
import { WebhooksInstance } from "./webhooks-instance.js";

const repo = { host: "github.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };
const INSTALLATION = 4711;
const GOOD = 1;
const BROKEN = 2;
const PUBLIC_URL = "https://mainline.example.com";
const app = makeTestAppCredentials(90210);
const summary = (r: RecordedRequest) => {
  const body = (r.body ?? {}) as { status?: string; conclusion?: string; output?: { title?: string } };
  if (r.operationId === "checks/create" || r.operationId === "checks/update")
    return `${r.operationId} ${body.status ?? ""}${body.conclusion ? `/${body.conclusion}` : ""} ${body.output?.title ?? ""}`;
  return r.operationId ?? r.path;
};

describe("talking back to GitHub: check runs, failure comments and command replies from the outbox", function () {
  this.timeout(180_000);
  let dir: string;
  let remote: string;
  let double: GitHubDouble;
  let system: QueueSystem;
  let webhooks: WebhooksInstance;
  let coordinatorApi: QueueCoordinatorClient;

  const call = (route: string, body: unknown) => system.call(route, body);
  /** The requests about one PR: comments on it, and its head's check run (created, then updated by id). */
  const prRequests = (pr: number) => {
    const head = git(remote, "rev-parse", `refs/pull/${pr}/head`);
    const checkRunIds = new Set(
      double
        .calls("checks/create")
        .filter((r) => (r.body as { head_sha?: string }).head_sha === head)
        .map((r) => String((r.responseBody as { id: number }).id)),
    );
    return double.requests.filter(
      (r) =>
        r.pathParams.issue_number === String(pr) ||
        (r.operationId === "checks/create" && (r.body as { head_sha?: string }).head_sha === head) ||
        (r.operationId === "checks/update" && checkRunIds.has(r.pathParams.check_run_id ?? "")),
    );
  };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-talk-back-"));
    const local = await LocalRemote.create(dir, {
      "test.sh": 'if [ -e BROKEN ]; then echo "BROKEN exists"; exit 1; fi\necho ok\n',
    });
    for (const n of [GOOD, BROKEN])
      await local.pushPullRequest(n, `feature-${n}`, `Change ${n}`, {
        [n === BROKEN ? "BROKEN" : `pr-${n}.txt`]: `change ${n}\n`,
      });
    remote = local.remoteDir;

    double = await GitHubDouble.start({
      app,
      installations: [
        { id: INSTALLATION, account: "acme", repositories: ["acme/app"] },
        { id: 999, account: "globex", repositories: ["globex/app"] },
      ],
    });
    system = await QueueSystem.start({
      workDir: path.join(dir, "runner"),
      jobConcurrency: 1,
      maxRunSeconds: 60,
      // Jobs of an installation's repository authenticate git with its token (the local remote ignores it).
      github: new GitHubAppClient({
        settings: {
          appId: app.appId,
          privateKey: app.privateKey,
          webhookSecret: undefined,
          apiUrl: double.url,
        },
        logger: createLogger("batch-runner-github", "silent"),
        writeSpacingMs: 0,
        notificationSpacingMs: 0,
      }),
    });
    coordinatorApi = createGrpcClient(QueueCoordinatorClient, system.coordinator.address);
    webhooks = await WebhooksInstance.start(system.coordinator, double, { app, publicUrl: PUBLIC_URL });
    await callUnary(coordinatorApi.connectGitHubInstallation.bind(coordinatorApi), {
      org: "acme",
      installationId: INSTALLATION,
      accountLogin: "acme",
      host: "github.com",
    });
    await call("/createQueue", { ...queue, concurrency: 1 });
    await call("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh" },
    });
  });

  afterEach(() => double.assertNoViolations());

  after(async () => {
    await webhooks?.stop();
    await system?.stop();
    await double?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("follows a good PR to merged and a broken one to failed, with a comment saying why and what to do", async () => {
    for (const n of [GOOD, BROKEN]) {
      await call("/code-host/pull-request-events", {
        action: "opened",
        number: n,
        pull_request: {
          title: `Change ${n}`,
          state: "open",
          user: { login: "dev" },
          head: { ref: `feature-${n}`, sha: git(remote, "rev-parse", `refs/pull/${n}/head`) },
          base: { ref: "main" },
        },
        repository: {
          name: repo.name,
          owner: { login: repo.owner },
          html_url: "https://github.com/acme/app",
        },
      });
      await call("/submitPullRequest", { ...queue, pr: { number: n } });
    }
    await eventually(() => {
      const good = prRequests(GOOD).map(summary);
      const broken = prRequests(BROKEN).map(summary);
      expect(good.at(-1)).to.equal("checks/update completed/success Merged");
      expect(broken.at(-1)).to.equal("issues/create-comment");
      expect(broken.at(-2)).to.equal("checks/update completed/failure Tests failed");
    }, 120_000);
    const good = prRequests(GOOD).map(summary);
    // Created once, queued with its place, then updated as it moves; never a second check run for one head.
    expect(good[0]).to.match(
      /^checks\/create queued (Position 1 of \d+ in the queue|Waiting to be ready|Submitted)/,
    );
    expect(good.filter((s) => s.startsWith("checks/create"))).to.have.length(1);
    expect(good).to.include("checks/update in_progress Testing");
    const create = prRequests(GOOD)[0]!;
    expect((create.body as { head_sha: string }).head_sha).to.equal(
      git(remote, "rev-parse", "refs/pull/1/head"),
    );
    expect((create.body as { details_url: string }).details_url).to.equal(
      `${PUBLIC_URL}/pull-request?repo=github.com%2Facme%2Fapp&branch=main&pr=1`,
    );
    expect(prRequests(GOOD).every((r) => r.credential === INSTALLATION)).to.equal(true);

    const comment = prRequests(BROKEN).at(-1)!;
    expect(comment.pathParams).to.deep.include({ owner: "acme", repo: "app", issue_number: "2" });
    const body = (comment.body as { body: string }).body;
    expect(body).to.contain("its tests failed");
    expect(body).to.contain("`/svc merge`");
    expect(body).to.match(
      /Details of the failed run: https:\/\/mainline\.example\.com\/v1\/test-runs\/[^/\s]+\/output/,
    );
    const failed = prRequests(BROKEN).find(
      (r) => summary(r) === "checks/update completed/failure Tests failed",
    )!;
    expect((failed.body as { output: { summary: string } }).output.summary).to.contain("TESTS_FAILED");
  });

  it("moves the PRs behind one that leaves up a place, on their own check runs", async () => {
    const release = { repo, targetBranch: "release" };
    await call("/createQueue", { ...release, concurrency: 1 });
    await call("/updateQueue", { ...release, state: "PAUSED" });
    const shaOf = (n: number) => `${n}`.padStart(40, "a");
    for (const n of [11, 12, 13]) {
      await call("/code-host/pull-request-events", {
        action: "opened",
        number: n,
        pull_request: {
          title: `Change ${n}`,
          state: "open",
          user: { login: "dev" },
          head: { ref: `feature-${n}`, sha: shaOf(n) },
          base: { ref: "release" },
        },
        repository: {
          name: repo.name,
          owner: { login: repo.owner },
          html_url: "https://github.com/acme/app",
        },
      });
      await call("/submitPullRequest", { ...release, pr: { number: n } });
    }
    const titleOf = (n: number) => {
      const ids = new Set(
        double
          .calls("checks/create")
          .filter((r) => (r.body as { head_sha: string }).head_sha === shaOf(n))
          .map((r) => String((r.responseBody as { id: number }).id)),
      );
      const last = double.requests.filter(
        (r) =>
          (r.operationId === "checks/create" && (r.body as { head_sha: string }).head_sha === shaOf(n)) ||
          (r.operationId === "checks/update" && ids.has(r.pathParams.check_run_id ?? "")),
      );
      return (last.at(-1)?.body as { output?: { title?: string } } | undefined)?.output?.title;
    };
    await eventually(() => expect(titleOf(13)).to.equal("Position 3 of 3 in the queue"));
    await call("/cancelPullRequest", { ...release, pr: { number: 11 } });
    await eventually(() => {
      expect(titleOf(11)).to.equal("Removed from the queue");
      expect(titleOf(12)).to.equal("Position 1 of 2 in the queue");
      expect(titleOf(13)).to.equal("Position 2 of 2 in the queue");
    });
  });

  it("posts a command reply once per idempotency key, and only on a repository of the caller's installation", async () => {
    const api = webhooks.api;
    const post = (body: string, key: string, org = "acme", target = repo) =>
      callUnary(api.postPullRequestComment.bind(api), {
        org,
        repo: target,
        prNumber: GOOD,
        body,
        idempotencyKey: key,
      });
    expect(await post("Queued in main", "delivery-1")).to.deep.equal({ queued: true });
    expect(await post("Queued in main", "delivery-1")).to.deep.equal({ queued: false });
    await eventually(() =>
      expect(
        double
          .calls("issues/create-comment")
          .filter((r) => (r.body as { body: string }).body.startsWith("Queued in main")),
      ).to.have.length(1),
    );

    // globex/app is another organisation's: acme's call is never sent to it (no installation of acme covers it).
    const before = double.requests.length;
    expect(
      await post("sneaky", "delivery-2", "acme", { host: "github.com", owner: "globex", name: "app" }),
    ).to.deep.equal({ queued: true });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(double.requests.slice(before).map((r) => r.path)).to.not.include(
      "/repos/globex/app/issues/1/comments",
    );
    // What Mainline sees (for `mainline github status`): the reply sent, the other one given up, and why.
    const { calls } = await callUnary(api.listGitHubCalls.bind(api), { org: "acme", limit: 500 });
    expect(calls.find((c) => c.id === "comment:reply:delivery-1")).to.include({
      state: "sent",
      kind: "comment",
    });
    expect(calls.find((c) => c.id === "comment:reply:delivery-2")).to.deep.include({
      state: "gave_up",
      lastError: "no GitHub App installation of acme covers github.com/globex/app",
      repo: { host: "github.com", owner: "globex", name: "app" },
    });
    expect((await callUnary(api.listGitHubCalls.bind(api), { org: "globex", limit: 0 })).calls).to.deep.equal(
      [],
    );
  });

  it("refuses a bad reply request with the field and the rule", async () => {
    const api = webhooks.api;
    const error = (request: Record<string, unknown>) =>
      callUnary(api.postPullRequestComment.bind(api), {
        org: "acme",
        repo,
        prNumber: 1,
        body: "hi",
        idempotencyKey: "k",
        ...request,
      }).then(
        () => undefined,
        (e: Error) => e.message,
      );
    expect(await error({ body: "x".repeat(65_537) })).to.equal("body: must be at most 65536 characters");
    expect(await error({ prNumber: 0 })).to.equal("prNumber: must be from 1 to 2147483647");
    expect(await error({ idempotencyKey: "" })).to.equal("idempotencyKey: is required");
    expect(await error({ repo: { host: "github.com", owner: "acme", name: "n".repeat(256) } })).to.equal(
      "repo.name: must be at most 255 characters",
    );
    const listed = await callUnary(api.listGitHubCalls.bind(api), { org: "acme", limit: 501 }).catch(
      (e: Error) => e.message,
    );
    expect(listed).to.equal("limit: must be from 1 to 500");
  });

  it("does not post twice when the service dies after GitHub took the comment but before it was recorded", async () => {
    const dying = webhooks;
    let posted: { id: number; body: string } | undefined;
    double.script("issues/create-comment", (request) => {
      const body = (request.body as { body: string }).body;
      if (!body.startsWith("posted before the crash")) return undefined;
      // GitHub has it; the service dies before it hears back.
      dying.app.kill();
      posted = { id: 777_001, body };
      return { status: 201, body: { id: posted.id, body } };
    });
    // GitHub's list of the PR's comments now holds the one that was posted (the double keeps no state itself).
    double.script(
      "issues/list-comments",
      () => ({ status: 200, body: posted ? [{ id: posted.id, body: posted.body }] : [] }),
      Infinity,
    );
    await callUnary(dying.api.postPullRequestComment.bind(dying.api), {
      org: "acme",
      repo,
      prNumber: GOOD,
      body: "posted before the crash",
      idempotencyKey: "delivery-lost-answer",
    });
    await eventually(() => expect(posted).to.not.equal(undefined));
    await dying.kill();
    webhooks = await WebhooksInstance.start(system.coordinator, double, { app, publicUrl: PUBLIC_URL });
    // The call's lease runs out, the new instance takes it, finds its marker among the comments and stops there.
    await eventually(() => expect(double.calls("issues/list-comments")).to.have.length.at.least(1), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const posts = double
      .calls("issues/create-comment")
      .filter((r) => (r.body as { body: string }).body.startsWith("posted before the crash"));
    expect(posts).to.have.length(1);
    expect(posts[0]!.seq).to.be.below(double.calls("issues/list-comments")[0]!.seq);
    double.clearScripts();
  });

  it("keeps a call through GitHub outages and a crash of the service: the next instance sends it, once", async () => {
    double.script("issues/create-comment", serverError(502), Infinity);
    const api = webhooks.api;
    await callUnary(api.postPullRequestComment.bind(api), {
      org: "acme",
      repo,
      prNumber: GOOD,
      body: "survives a crash",
      idempotencyKey: "delivery-crash",
    });
    await eventually(() =>
      expect(double.calls("issues/create-comment").filter((r) => r.status === 502).length).to.be.at.least(4),
    );
    await webhooks.kill();
    // GitHub recovers while Mainline is down; the comment must still arrive, from the outbox of a new instance.
    double.clearScripts();
    webhooks = await WebhooksInstance.start(system.coordinator, double, { app, publicUrl: PUBLIC_URL });
    await eventually(
      () =>
        expect(
          double
            .calls("issues/create-comment")
            .filter(
              (r) => r.status === 201 && (r.body as { body: string }).body.startsWith("survives a crash"),
            ),
        ).to.have.length(1),
      20_000,
    );
  });
});
