import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect, type NatsConnection } from "nats";
import {
  eventually,
  git,
  GitHubDouble,
  NatsServer,
  makeTestAppCredentials,
  type RecordedRequest,
} from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { startBatchRunner, type BatchRunner } from "@mainline/batch-runner";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { FlakyHarness } from "@mainline/harness/flaky-harness";
import { doubleAppClient, WebhooksInstance } from "../webhooks-instance.js";
import { githubRequest, pullRequestComment, pullRequestDelivery, type Payload } from "./github-deliveries.js";

const SECRET = "end-to-end webhook secret, 32+ chars";
export const INSTALLATION = 957387;
export const ACME = { owner: "Codertocat", name: "Hello-World" };
export const repo = { host: "github.com", ...ACME };

/** What the gateway answers a delivery, as the end-to-end tests read it. */
export interface Answer {
  outcome: string;
  reason?: string;
  reply?: string;
}

/** A test run of a PR, once the batch-runner pushed its test branch. */
export interface TestBranch {
  testBranch: string;
  testBranchSha: string;
  testRunId: string;
}

/**
 * Every Mainline part real (coordinator, batch-runner, webhooks service with the GitHub App, gateway) and GitHub
 * played by the double, on a real local git remote whose PRs #1 and #2 exist (refs/pull/N/head, as GitHub keeps
 * them); the repository is connected and the App installed. The helpers act as GitHub and as the user would.
 */
export class GitHubAppSystem {
  private constructor(
    private readonly dir: string,
    readonly remote: string,
    readonly work: string,
    readonly double: GitHubDouble,
    private readonly coordinator: CoordinatorHarness,
    private readonly runnerNats: NatsConnection,
    private readonly runner: BatchRunner,
    private readonly webhooks: WebhooksInstance,
    readonly gw: GatewayHarness,
    readonly admin: string,
    /** flaky-analytics, which the coordinator asks about a failed run's tests; null unless asked for. */
    readonly flaky: FlakyHarness | null,
  ) {}

  static async start(options: { flakyAnalytics?: boolean } = {}): Promise<GitHubAppSystem> {
    const dir = await mkdtemp(path.join(tmpdir(), "mainline-github-e2e-"));
    const remote = path.join(dir, "remote.git");
    const work = path.join(dir, "work");
    git(dir, "init", "--bare", "--initial-branch=main", remote);
    git(remote, "config", "core.logAllRefUpdates", "always");
    git(dir, "clone", "-q", remote, work);
    git(work, "checkout", "-q", "-b", "main");
    await writeFile(path.join(work, "README.md"), "Hello\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "initial");
    git(work, "push", "-q", "origin", "main");
    const base = git(work, "rev-parse", "HEAD");
    for (const n of [1, 2]) {
      git(work, "checkout", "-q", "-b", `feature-${n}`, base);
      await writeFile(path.join(work, `change-${n}.txt`), `change ${n}\n`);
      git(work, "add", ".");
      git(work, "commit", "-q", "-m", `Change ${n}`);
      git(work, "push", "-q", "origin", `HEAD:refs/heads/feature-${n}`, `HEAD:refs/pull/${n}/head`);
    }

    const app = makeTestAppCredentials(424242);
    const logger = createLogger("github-e2e", process.env.TEST_LOG_LEVEL ?? "silent");
    const double = await GitHubDouble.start({
      app,
      installations: [
        { id: INSTALLATION, account: ACME.owner, repositories: [`${ACME.owner}/${ACME.name}`] },
      ],
    });
    const nats = await NatsServer.start();
    const flaky = options.flakyAnalytics === true ? await FlakyHarness.startOn(nats) : null;
    const coordinator = await CoordinatorHarness.start({
      nats,
      ...(flaky !== null && { flakyAnalyticsAddress: flaky.address }),
    });
    const runnerNats = await connect(coordinator.nats.connectOptions());
    const runner = await startBatchRunner({
      nats: runnerNats,
      logger,
      settings: {
        workDir: path.join(dir, "runner"),
        gitIdentity: { name: "Mainline", email: "mainline@localhost" },
        jobConcurrency: 2,
        maxRunSeconds: 120,
        github: doubleAppClient(double, app, logger),
      },
    });
    const webhooks = await WebhooksInstance.start(coordinator, double, {
      app,
      publicUrl: "https://mainline.example.com",
    });
    const gw = await GatewayHarness.start(
      { queue: coordinator.address, webhooks: `127.0.0.1:${webhooks.server.port}` },
      { github: { webhookSecret: SECRET, replies: "webhooks-service" }, nats: coordinator.nats },
    );
    await gw.auth.createOrganization("acme", "acme");
    const admin = (await gw.auth.createToken("acme", "admin", true)).token;
    const system = new GitHubAppSystem(
      dir,
      remote,
      work,
      double,
      coordinator,
      runnerNats,
      runner,
      webhooks,
      gw,
      admin,
      flaky,
    );
    await system.call("/github/installations", { installationId: INSTALLATION, accountLogin: ACME.owner });
    await system.call("/repositories/connection", { repo, remoteUrl: remote, runner: { kind: "EXTERNAL" } });
    return system;
  }

  async stop(): Promise<void> {
    await this.gw.stop();
    await this.webhooks.stop();
    await this.runner.stop();
    await this.runnerNats.close();
    await this.coordinator.stop();
    await this.flaky?.stop();
    await this.coordinator.nats.stop();
    await this.double.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** An admin's REST call through the gateway, which must succeed. */
  async call(route: string, body: unknown): Promise<Record<string, unknown>> {
    const response = await this.gw.post(route, body, this.admin);
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).to.equal(200);
    return JSON.parse(text) as Record<string, unknown>;
  }

  /** A queue on a new target branch of the remote, made from main, with these settings. */
  async queueOnNewBranch(branch: string, settings: Record<string, unknown>): Promise<void> {
    git(this.work, "fetch", "-q", "origin", "main");
    git(this.work, "push", "-q", "origin", `FETCH_HEAD:refs/heads/${branch}`);
    await this.call("/createQueue", { repo, targetBranch: branch });
    await this.call("/updateQueue", { repo, targetBranch: branch, ...settings });
  }

  /** A signed delivery of `event`, as GitHub makes it, which the gateway must take (200). */
  async deliver(event: string, payload: unknown): Promise<Answer> {
    const request = await githubRequest({ event, payload }, SECRET);
    const response = await this.gw.post("/github/webhooks", request.body, undefined, request.headers);
    const text = await response.text();
    expect(response.status, `${event}: ${text}`).to.equal(200);
    return JSON.parse(text) as Answer;
  }

  /** The pull_request.opened delivery of PR `number` onto `base`, at its head on the remote. */
  pullRequestOpened(number: number, base: string): Payload {
    const p = pullRequestDelivery(INSTALLATION, ACME, number, { base });
    p.pull_request.title = `Change ${number}`;
    p.pull_request.head.sha = git(this.remote, "rev-parse", `refs/pull/${number}/head`);
    return p;
  }

  /** `/svc merge` commented on PR `number`. */
  mergeComment(number: number): Payload {
    return pullRequestComment(INSTALLATION, ACME, number, "/svc merge");
  }

  /** A new commit for PR `number` on top of `base`'s head, pushed as GitHub keeps it; its sha. */
  async pushPullRequest(number: number, base: string): Promise<string> {
    const work = this.work;
    git(work, "fetch", "-q", "origin", base);
    git(work, "checkout", "-q", "-B", `feature-${number}`, "FETCH_HEAD");
    await writeFile(path.join(work, `change-${number}.txt`), `change ${number}\n`);
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", `Change ${number}`);
    git(
      work,
      "push",
      "-q",
      "-f",
      "origin",
      `HEAD:refs/heads/feature-${number}`,
      `HEAD:refs/pull/${number}/head`,
    );
    return git(this.remote, "rev-parse", `refs/pull/${number}/head`);
  }

  /** A new PR `number` on `base`, opened and `/svc merge`d: its test run, once its branch is pushed. */
  async openPullRequest(number: number, base: string): Promise<TestBranch> {
    await this.pushPullRequest(number, base);
    await this.deliver("pull_request", this.pullRequestOpened(number, base));
    expect((await this.deliver("issue_comment", this.mergeComment(number))).outcome).to.equal("applied");
    return this.testBranchOf(base, number);
  }

  /** The test run testing PR `number`: its branch and commit, once the batch-runner pushed it. */
  async testBranchOf(target: string, number: number): Promise<TestBranch> {
    let found: TestBranch | undefined;
    await eventually(async () => {
      const q = await this.call("/getQueue", { repo, targetBranch: target });
      const entry = (q.enqueuedPullRequests as { prNumber: number; testRunId?: string }[]).find(
        (e) => e.prNumber === number,
      );
      expect(entry?.testRunId, "a test run started").to.be.a("string");
      const details = await this.call("/getMergeQueueTestingDetails", {
        repo,
        targetBranch: target,
        testRunId: entry!.testRunId,
      });
      expect(details.testBranchSha, "the test branch is pushed").to.match(/^[0-9a-f]{40}$/);
      found = {
        testBranch: details.testBranch as string,
        testBranchSha: details.testBranchSha as string,
        testRunId: entry!.testRunId!,
      };
    }, 60_000);
    return found!;
  }

  async stateOf(target: string, number: number): Promise<unknown> {
    return (await this.call("/getSubmittedPullRequest", { repo, targetBranch: target, pr: { number } }))
      .state;
  }

  /** What the double saw about PR `number`: its head's check run (created, then updated by id) and comments. */
  talkBack(number: number, headSha: string): string[] {
    const checkRunIds = new Set(
      this.double
        .calls("checks/create")
        .filter((r) => (r.body as { head_sha?: string }).head_sha === headSha)
        .map((r) => String((r.responseBody as { id: number }).id)),
    );
    const check = (r: RecordedRequest) => {
      const body = r.body as { status?: string; conclusion?: string };
      return `check ${body.status ?? ""}${body.conclusion ? `/${body.conclusion}` : ""}`;
    };
    return this.double.requests.flatMap((r) =>
      r.operationId === "issues/create-comment" && r.pathParams.issue_number === String(number)
        ? [`comment ${String((r.body as { body: string }).body).split("\n")[0]}`]
        : (r.operationId === "checks/create" && (r.body as { head_sha?: string }).head_sha === headSha) ||
            (r.operationId === "checks/update" && checkRunIds.has(r.pathParams.check_run_id ?? ""))
          ? [check(r)]
          : [],
    );
  }
}
