/**
 * Talking back to GitHub: how soon a PR's check run appears on GitHub after it is submitted, and how many calls a
 * second the outbox sends, against the GitHub double (every request checked against GitHub's OpenAPI description).
 *
 *   node --conditions=mainline-source --import tsx tools/bench/github-talk-back-bench.ts   (--prs 200 --comments 200)
 *
 * The queue-coordinator, the gateway and the webhooks service run in this process on one nats-server; the queue is
 * paused so PRs stay queued. Writes are not spaced here (GitHub asks for one a second per installation, which the
 * production client keeps): the figures are Mainline's own cost between a lifecycle event and GitHub's answer.
 */
import { parseArgs } from "node:util";
import { GitHubDouble, makeTestAppCredentials, NatsServer } from "@mainline/testing";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { callUnary, createGrpcClient, startGrpcServer } from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore } from "@mainline/kit/store/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { WebhooksClient } from "@mainline/proto/webhooks";
import { connect } from "nats";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { WebhooksApp } from "@mainline/webhooks";

const { values } = parseArgs({
  options: { prs: { type: "string", default: "200" }, comments: { type: "string", default: "200" } },
});
const prCount = Number(values.prs);
const commentCount = Number(values.comments);
const repo = { host: "github.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };
const app = makeTestAppCredentials(1);
const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
const shaOf = (n: number) => n.toString(16).padStart(40, "0");

const double = await GitHubDouble.start({
  app,
  installations: [{ id: 7, account: "acme", repositories: ["acme/app"] }],
});
const nats = await NatsServer.start();
const coordinator = await CoordinatorHarness.start({ nats });
const gw = await GatewayHarness.start({ queue: coordinator.address }, { nats });
const nc = await connect(nats.connectOptions());
const store = await openStore({ database: "mainline-webhooks", nats: nc });
const logger = createLogger("webhooks-bench", "silent");
const webhooks = await WebhooksApp.start({
  nats: nc,
  store,
  logger,
  settings: {
    WEBHOOKS_ALLOW_LOOPBACK: true,
    WEBHOOKS_ALLOWED_CIDRS: [],
    WEBHOOKS_RETRY_SCHEDULE_MS: [1000],
    WEBHOOKS_RETRY_JITTER: 0,
    WEBHOOKS_DELIVERY_TIMEOUT_MS: 5000,
    WEBHOOKS_ACK_WAIT_MS: 30_000,
    WEBHOOKS_RECONCILE_INTERVAL_MS: 60_000,
  },
  github: {
    client: new GitHubAppClient({
      settings: {
        appId: app.appId,
        privateKey: app.privateKey,
        webhookSecret: undefined,
        apiUrl: double.url,
      },
      logger,
      writeSpacingMs: 0,
      notificationSpacingMs: 0,
    }),
    coordinator: createGrpcClient(QueueCoordinatorClient, coordinator.address),
    publicUrl: "https://mainline.example.com",
    leaseMs: 60_000,
    maxAttempts: 30,
    retryMs: 1000,
  },
});
const server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [webhooks.grpc] });
server.setServing(true);
try {
  const token = await gw.organization("acme");
  const call = async (route: string, body: unknown) => {
    const response = await gw.post(route, body, token);
    if (response.status !== 200) throw new Error(`${route}: ${response.status} ${await response.text()}`);
  };
  const coordinatorApi = createGrpcClient(QueueCoordinatorClient, coordinator.address);
  await callUnary(coordinatorApi.connectGitHubInstallation.bind(coordinatorApi), {
    org: "acme",
    installationId: 7,
    accountLogin: "acme",
    host: "github.com",
  });
  await call("/createQueue", { ...queue, concurrency: 1 });
  await call("/updateQueue", { ...queue, state: "PAUSED" });

  // Submission -> check run created on GitHub, per PR.
  const submittedAt = new Map<string, number>();
  const started = Date.now();
  for (let n = 1; n <= prCount; n++) {
    await call("/code-host/pull-request-events", {
      action: "opened",
      number: n,
      pull_request: {
        title: `Change ${n}`,
        state: "open",
        user: { login: "dev" },
        head: { ref: `feature-${n}`, sha: shaOf(n) },
        base: { ref: "main" },
      },
      repository: { name: repo.name, owner: { login: repo.owner }, html_url: "https://github.com/acme/app" },
    });
    submittedAt.set(shaOf(n), Date.now());
    await call("/submitPullRequest", { ...queue, pr: { number: n } });
  }
  const createdAt = async () => {
    for (;;) {
      const created = new Map<string, number>();
      for (const r of double.calls("checks/create"))
        created.set((r.body as { head_sha: string }).head_sha, r.receivedAt);
      if (created.size >= prCount) return created;
      if (Date.now() - started > 300_000) throw new Error(`only ${created.size} check runs after 5 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const created = await createdAt();
  const delays = [...submittedAt].map(([sha, at]) => (created.get(sha) ?? at) - at);
  const lastCreate = Math.max(...created.values());
  console.log(
    `check run per submitted PR (${prCount} PRs): p50 ${percentile(delays, 50)} ms, p95 ${percentile(delays, 95)} ms, ` +
      `max ${Math.max(...delays)} ms; all ${prCount} created ${lastCreate - started} ms after the first submit`,
  );

  // Command replies through PostPullRequestComment -> comments on GitHub.
  const webhooksApi = createGrpcClient(WebhooksClient, `127.0.0.1:${server.port}`);
  const before = double.calls("issues/create-comment").length;
  const repliesStarted = Date.now();
  await Promise.all(
    Array.from({ length: commentCount }, (_, i) =>
      callUnary(webhooksApi.postPullRequestComment.bind(webhooksApi), {
        org: "acme",
        repo,
        prNumber: 1 + (i % prCount),
        body: `reply ${i}`,
        idempotencyKey: `bench-${i}`,
      }),
    ),
  );
  const queuedMs = Date.now() - repliesStarted;
  while (double.calls("issues/create-comment").length - before < commentCount) {
    if (Date.now() - repliesStarted > 300_000) throw new Error("replies did not all arrive within 5 minutes");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const repliesMs = Date.now() - repliesStarted;
  console.log(
    `${commentCount} replies: queued in ${queuedMs} ms, all posted in ${repliesMs} ms ` +
      `(${Math.round((commentCount * 1000) / repliesMs)} comments/s through the outbox)`,
  );
  double.assertNoViolations();
  console.log(`GitHub double: ${double.requests.length} requests, 0 violations of GitHub's description`);
} finally {
  await webhooks.stop();
  await server.shutdown(100);
  await store.close();
  await nc.close();
  await gw.stop();
  await coordinator.stop();
  await nats.stop();
  await double.stop();
}
