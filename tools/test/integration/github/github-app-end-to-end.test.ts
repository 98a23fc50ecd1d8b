import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { connect, type NatsConnection } from "nats";
import {
  branchMoves,
  eventually,
  git,
  GitHubDouble,
  makeTestAppCredentials,
  type RecordedRequest,
} from "@mainline/testing";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { createGrpcClient, startGrpcServer, type GrpcServerHandle } from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { startBatchRunner, type BatchRunner } from "@mainline/batch-runner";
import { GatewayHarness } from "@mainline/gateway/testing/gateway-harness";
import { CoordinatorHarness } from "@mainline/queue-coordinator/testing/coordinator-harness";
import { WebhooksApp } from "@mainline/webhooks";
import { example, githubRequest, through, type Payload } from "./github-deliveries.js";

const SECRET = "end-to-end webhook secret, 32+ chars";
const INSTALLATION = 957387;
const ACME = { owner: "Codertocat", name: "Hello-World" };
const repo = { host: "github.com", ...ACME };
const app = makeTestAppCredentials(424242);

/**
 * Issue 19 end to end, with every Mainline part real and GitHub played by the double (which checks each request
 * against GitHub's OpenAPI description): a PR on a real local git remote, `/svc merge` as a signed issue_comment,
 * a check_suite completed on the test branch, and the PR merged, its check run and comments seen in order.
 */
describe("GitHub App end to end: webhooks in, CI on the test branch, merge, check run and comments out", function () {
  this.timeout(240_000);
  let dir: string;
  let remote: string;
  let work: string;
  let double: GitHubDouble;
  let coordinator: CoordinatorHarness;
  let runnerNats: NatsConnection;
  let runner: BatchRunner;
  let webhooksNats: NatsConnection;
  let webhooksStore: Store;
  let webhooks: WebhooksApp;
  let webhooksServer: GrpcServerHandle;
  let gw: GatewayHarness;
  let admin: string;
  const logger = createLogger("github-e2e", process.env.TEST_LOG_LEVEL ?? "silent");
  const client = () =>
    new GitHubAppClient({
      settings: {
        appId: app.appId,
        privateKey: app.privateKey,
        webhookSecret: undefined,
        apiUrl: double.url,
      },
      logger,
      writeSpacingMs: 0,
      notificationSpacingMs: 0,
      retryUnitMs: 10,
    });

  const call = async (route: string, body: unknown) => {
    const response = await gw.post(route, body, admin);
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).to.equal(200);
    return JSON.parse(text) as Record<string, unknown>;
  };
  // A queue on a new target branch of the remote, made from main, with these settings.
  const queueOnNewBranch = async (branch: string, settings: Record<string, unknown>) => {
    git(work, "fetch", "-q", "origin", "main");
    git(work, "push", "-q", "origin", `FETCH_HEAD:refs/heads/${branch}`);
    await call("/createQueue", { repo, targetBranch: branch });
    await call("/updateQueue", { repo, targetBranch: branch, ...settings });
  };
  const deliver = async (event: string, payload: unknown) => {
    const request = await githubRequest({ event, payload }, SECRET);
    const response = await gw.post("/github/webhooks", request.body, undefined, request.headers);
    const text = await response.text();
    expect(response.status, `${event}: ${text}`).to.equal(200);
    return JSON.parse(text) as { outcome: string; reason?: string; reply?: string };
  };
  const pullRequestOpened = (number: number, base: string): Payload => {
    const p = through(
      example("pull_request", "opened", (e) => e.installation !== undefined),
      INSTALLATION,
      ACME,
    );
    p.number = number;
    p.pull_request.number = number;
    p.pull_request.title = `Change ${number}`;
    p.pull_request.base.ref = base;
    p.pull_request.head.ref = `feature-${number}`;
    p.pull_request.head.sha = git(remote, "rev-parse", `refs/pull/${number}/head`);
    return p;
  };
  const mergeComment = (number: number): Payload => {
    const p = through(example("issue_comment", "created"), INSTALLATION, ACME);
    p.issue.number = number;
    p.issue.pull_request = { url: `https://api.github.com/repos/${ACME.owner}/${ACME.name}/pulls/${number}` };
    p.comment.body = "/svc merge";
    return p;
  };
  /** The test run testing PR `number`: its branch and commit, once the batch-runner pushed it. */
  const testBranchOf = async (target: string, number: number) => {
    let found: { testBranch: string; testBranchSha: string; testRunId: string } | undefined;
    await eventually(async () => {
      const q = await call("/getQueue", { repo, targetBranch: target });
      const entry = (q.enqueuedPullRequests as { prNumber: number; testRunId?: string }[]).find(
        (e) => e.prNumber === number,
      );
      expect(entry?.testRunId, "a test run started").to.be.a("string");
      const details = await call("/getMergeQueueTestingDetails", {
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
  };
  const checkSuiteCompleted = (testBranch: string, sha: string, conclusion: string): Payload => {
    const p = through(example("check_suite", "completed"), INSTALLATION, ACME);
    p.check_suite.head_branch = testBranch;
    p.check_suite.head_sha = sha;
    p.check_suite.status = "completed";
    p.check_suite.conclusion = conclusion;
    p.check_suite.app = { ...p.check_suite.app, name: "GitHub Actions" };
    return p;
  };
  const checkRun = (testBranch: string, sha: string, name: string, conclusion: string | null): Payload => {
    const p = through(example("check_run", "completed"), INSTALLATION, ACME);
    p.check_run.name = name;
    p.check_run.head_sha = sha;
    p.check_run.status = conclusion === null ? "in_progress" : "completed";
    p.check_run.conclusion = conclusion;
    p.check_run.check_suite = { ...p.check_run.check_suite, head_branch: testBranch, head_sha: sha };
    return p;
  };
  const commitStatusOf = (testBranch: string, sha: string, context: string, state: string): Payload => {
    const p = through(example("status", undefined), INSTALLATION, ACME);
    p.sha = sha;
    p.context = context;
    p.state = state;
    p.target_url = `https://ci.example.com/${context}/${sha}`;
    p.branches = [{ name: testBranch, commit: { sha, url: "https://example.com" }, protected: false }];
    return p;
  };
  const workflowRun = (
    testBranch: string,
    sha: string,
    name: string,
    suiteId: number,
    conclusion: string | null,
  ): Payload => {
    const p = through(
      example("workflow_run", conclusion === null ? "requested" : "completed"),
      INSTALLATION,
      ACME,
    );
    p.workflow_run.name = name;
    p.workflow_run.head_sha = sha;
    p.workflow_run.head_branch = testBranch;
    p.workflow_run.check_suite_id = suiteId;
    p.workflow_run.status = conclusion === null ? "in_progress" : "completed";
    p.workflow_run.conclusion = conclusion;
    if (p.workflow) p.workflow.name = name;
    return p;
  };
  const actionsSuite = (testBranch: string, sha: string, suiteId: number, conclusion: string): Payload => {
    const p = checkSuiteCompleted(testBranch, sha, conclusion);
    p.check_suite.id = suiteId;
    return p;
  };
  /** A new PR `number` on top of `base`'s head, as GitHub keeps it (refs/pull/N/head). */
  const openPullRequest = async (number: number, base: string) => {
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
    await deliver("pull_request", pullRequestOpened(number, base));
    expect((await deliver("issue_comment", mergeComment(number))).outcome).to.equal("applied");
    return testBranchOf(base, number);
  };
  const pushTo = (branch: string, before: string, after: string): Payload => {
    const p = through(
      example("push", undefined, (e) => String(e.ref).startsWith("refs/heads/")),
      INSTALLATION,
      ACME,
    );
    p.ref = `refs/heads/${branch}`;
    p.before = before;
    p.after = after;
    p.deleted = false;
    p.forced = false;
    return p;
  };
  const stateOf = async (target: string, number: number) =>
    (await call("/getSubmittedPullRequest", { repo, targetBranch: target, pr: { number } })).state;
  /** What the double saw about PR `number`: its head's check run (created, then updated by id) and comments. */
  const talkBack = (number: number, headSha: string) => {
    const checkRunIds = new Set(
      double
        .calls("checks/create")
        .filter((r) => (r.body as { head_sha?: string }).head_sha === headSha)
        .map((r) => String((r.responseBody as { id: number }).id)),
    );
    const check = (r: RecordedRequest) => {
      const body = r.body as { status?: string; conclusion?: string };
      return `check ${body.status ?? ""}${body.conclusion ? `/${body.conclusion}` : ""}`;
    };
    return double.requests.flatMap((r) =>
      r.operationId === "issues/create-comment" && r.pathParams.issue_number === String(number)
        ? [`comment ${String((r.body as { body: string }).body).split("\n")[0]}`]
        : (r.operationId === "checks/create" && (r.body as { head_sha?: string }).head_sha === headSha) ||
            (r.operationId === "checks/update" && checkRunIds.has(r.pathParams.check_run_id ?? ""))
          ? [check(r)]
          : [],
    );
  };

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-github-e2e-"));
    remote = path.join(dir, "remote.git");
    work = path.join(dir, "work");
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

    double = await GitHubDouble.start({
      app,
      installations: [
        { id: INSTALLATION, account: ACME.owner, repositories: [`${ACME.owner}/${ACME.name}`] },
      ],
    });
    coordinator = await CoordinatorHarness.start();
    runnerNats = await connect(coordinator.nats.connectOptions());
    runner = await startBatchRunner({
      nats: runnerNats,
      logger,
      settings: {
        workDir: path.join(dir, "runner"),
        gitIdentity: { name: "Mainline", email: "mainline@localhost" },
        jobConcurrency: 2,
        maxRunSeconds: 120,
        github: client(),
      },
    });
    webhooksNats = await connect(coordinator.nats.connectOptions());
    webhooksStore = await openStore({ database: "mainline-webhooks", nats: webhooksNats });
    webhooks = await WebhooksApp.start({
      nats: webhooksNats,
      store: webhooksStore,
      logger,
      settings: {
        WEBHOOKS_ALLOW_LOOPBACK: true,
        WEBHOOKS_ALLOWED_CIDRS: [],
        WEBHOOKS_RETRY_SCHEDULE_MS: [100],
        WEBHOOKS_RETRY_JITTER: 0,
        WEBHOOKS_DELIVERY_TIMEOUT_MS: 2_000,
        WEBHOOKS_ACK_WAIT_MS: 1_000,
        WEBHOOKS_RECONCILE_INTERVAL_MS: 60_000,
      },
      github: {
        client: client(),
        coordinator: createGrpcClient(QueueCoordinatorClient, coordinator.address),
        publicUrl: "https://mainline.example.com",
        leaseMs: 1_500,
        maxAttempts: 10,
        retryMs: 200,
        pollMs: 200,
      },
    });
    webhooksServer = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [webhooks.grpc] });
    webhooksServer.setServing(true);
    gw = await GatewayHarness.start(
      { queue: coordinator.address, webhooks: `127.0.0.1:${webhooksServer.port}` },
      { github: { webhookSecret: SECRET, replies: "webhooks-service" }, nats: coordinator.nats },
    );
    await gw.auth.createOrganization("acme", "acme");
    admin = (await gw.auth.createToken("acme", "admin", true)).token;
    await call("/github/installations", { installationId: INSTALLATION, accountLogin: ACME.owner });
    await call("/repositories/connection", { repo, remoteUrl: remote, runner: { kind: "EXTERNAL" } });
  });

  after(async () => {
    await gw?.stop();
    await webhooks?.stop();
    await webhooksServer?.shutdown(100);
    await webhooksStore?.close();
    await webhooksNats?.close();
    await runner?.stop();
    await runnerNats?.close();
    await coordinator?.stop();
    await coordinator?.nats.stop();
    await double?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("refuses /svc commands of commenters who are not the repository's owners, members or collaborators, and says so on the PR", async () => {
    for (const [association, body] of [
      ["NONE", "/svc merge"],
      ["CONTRIBUTOR", "/svc cancel"],
      ["FIRST_TIME_CONTRIBUTOR", "/svc merge --priority=urgent"],
      [undefined, "/svc merge"],
    ] as const) {
      const p = mergeComment(9);
      p.comment.body = body;
      p.comment.user = { ...p.comment.user, login: "stranger" };
      if (association === undefined) delete p.comment.author_association;
      else p.comment.author_association = association;
      const answer = await deliver("issue_comment", p);
      expect(answer.outcome, String(association)).to.equal("refused");
      expect(answer.reply).to.match(
        new RegExp(
          `^@stranger, only the repository's owners.*\\(your association .* is ${association ?? "unknown"}\\)`,
        ),
      );
    }
    const pr = await gw.post(
      "/getSubmittedPullRequest",
      { repo, targetBranch: "main", pr: { number: 9 } },
      admin,
    );
    expect(pr.status, "nothing was submitted").to.equal(404);
    // The refusals are posted on the PR, once each.
    await eventually(() => {
      const refusals = double
        .calls("issues/create-comment")
        .filter((r) => r.pathParams.issue_number === "9")
        .map((r) => String((r.body as { body: string }).body));
      expect(refusals.filter((b) => b.startsWith("@stranger, only"))).to.have.length(4);
    }, 30_000);
    double.assertNoViolations();
  });

  it("merges a PR by git fast-forward after /svc merge and a green check suite on its test branch", async () => {
    await call("/createQueue", { repo, targetBranch: "main" });
    await call("/updateQueue", { repo, targetBranch: "main", mergeMethod: "MERGE_COMMIT" });
    const head = git(remote, "rev-parse", "refs/pull/1/head");
    expect((await deliver("pull_request", pullRequestOpened(1, "main"))).outcome).to.equal("applied");
    const command = await deliver("issue_comment", mergeComment(1));
    expect(command).to.include({
      outcome: "applied",
      reply: "#1 joined the merge queue of `main` (priority medium).",
    });

    const { testBranch, testBranchSha } = await testBranchOf("main", 1);
    expect(git(remote, "rev-parse", `refs/heads/${testBranch}`)).to.equal(testBranchSha);
    // CI of another commit, and a suite still running, decide nothing.
    expect(
      (await deliver("check_suite", checkSuiteCompleted(testBranch, "f".repeat(40), "success"))).outcome,
    ).to.equal("ignored");
    const green = await deliver("check_suite", checkSuiteCompleted(testBranch, testBranchSha, "success"));
    expect(green.outcome, green.reason).to.equal("applied");
    expect(green.reason).to.match(/passed/);

    await eventually(async () => expect(await stateOf("main", 1)).to.equal("MERGED"), 60_000);
    // The PR's own commit reached main (GitHub marks the PR merged), and main only ever moved forward.
    expect(git(remote, "merge-base", "--is-ancestor", head, "refs/heads/main")).to.equal("");
    expect(branchMoves(remote, "refs/heads/main")).to.deep.equal({ moves: 1, forced: [] });

    await eventually(() => {
      const seen = talkBack(1, head);
      // The check run follows the PR: queued, testing, merged; the reply to /svc merge is on the PR too.
      expect(seen[0]).to.equal("check queued");
      expect(seen).to.include("comment #1 joined the merge queue of `main` (priority medium).");
      expect(seen.indexOf("check in_progress")).to.be.greaterThan(0);
      expect(seen.at(-1)).to.equal("check completed/success");
    }, 30_000);
    // GitHub's push event for the queue's own merge restarts nothing.
    const mainHead = git(remote, "rev-parse", "refs/heads/main");
    const own = await deliver(
      "push",
      pushTo("main", git(remote, "rev-parse", "refs/heads/main~1"), mainHead),
    );
    expect(own).to.include({ outcome: "ignored" });
    expect(own.reason).to.match(/own tested commits|already recorded/);
    double.assertNoViolations();
  });

  it("merges a SQUASH queue's PR through GitHub's merge API with its tested head sha", async () => {
    await call("/createQueue", { repo, targetBranch: "release" });
    git(work, "push", "-q", "origin", "main:refs/heads/release");
    const head = git(remote, "rev-parse", "refs/pull/2/head");
    await deliver("pull_request", pullRequestOpened(2, "release"));
    expect((await deliver("issue_comment", mergeComment(2))).outcome).to.equal("applied");
    const { testBranch, testBranchSha } = await testBranchOf("release", 2);
    await deliver("check_suite", checkSuiteCompleted(testBranch, testBranchSha, "success"));

    await eventually(async () => expect(await stateOf("release", 2)).to.equal("MERGED"), 60_000);
    const merges = double.calls("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge");
    expect(merges).to.have.length(1);
    expect(merges[0]!.pathParams).to.include({ owner: ACME.owner, repo: ACME.name, pull_number: "2" });
    expect(merges[0]!.body).to.deep.include({
      sha: head,
      merge_method: "squash",
      commit_title: "Change 2 (#2)",
    });
    expect(merges[0]!.credential, "with the installation's token").to.equal(INSTALLATION);
    // GitHub then tells of the push its merge made: the queue's own, so nothing restarts.
    const mergedSha = (merges[0]!.responseBody as { sha: string }).sha;
    const own = await deliver("push", pushTo("release", testBranchSha, mergedSha));
    expect(own).to.include({ outcome: "ignored", reason: "this push was already recorded" });
    double.assertNoViolations();
  });

  it("marks merged the PRs GitHub merged when it refuses the next PR of the batch, and re-tests only that one", async () => {
    await queueOnNewBranch("squash", { mergeMethod: "SQUASH", batch: true, batchingMinSize: 2 });
    double.script(
      "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge",
      (r) =>
        r.pathParams.pull_number === "22"
          ? { status: 405, body: { message: "Pull Request is not mergeable" } }
          : undefined,
      Infinity,
    );
    for (const n of [21, 22]) {
      git(work, "fetch", "-q", "origin", "squash");
      git(work, "checkout", "-q", "-B", `feature-${n}`, "FETCH_HEAD");
      await writeFile(path.join(work, `change-${n}.txt`), `change ${n}\n`);
      git(work, "add", ".");
      git(work, "commit", "-q", "-m", `Change ${n}`);
      git(work, "push", "-q", "-f", "origin", `HEAD:refs/heads/feature-${n}`, `HEAD:refs/pull/${n}/head`);
      await deliver("pull_request", pullRequestOpened(n, "squash"));
      expect((await deliver("issue_comment", mergeComment(n))).outcome).to.equal("applied");
    }
    const batch = await testBranchOf("squash", 22);
    expect((await testBranchOf("squash", 21)).testRunId, "tested together").to.equal(batch.testRunId);
    await deliver("check_suite", checkSuiteCompleted(batch.testBranch, batch.testBranchSha, "success"));

    await eventually(async () => expect(await stateOf("squash", 21)).to.equal("MERGED"), 60_000);
    // #22 is tested again, on its own, in a new run.
    const again = await testBranchOf("squash", 22);
    expect(again.testRunId).to.not.equal(batch.testRunId);
    expect(await stateOf("squash", 22)).to.equal("TESTING");
    expect(
      double
        .calls("PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge")
        .map((c) => c.pathParams.pull_number),
    ).to.include.members(["21", "22"]);
    double.clearScripts();
    double.assertNoViolations();
  });

  it("restarts the runs of a queue whose target moved outside it, once per pushed head", async () => {
    await call("/createQueue", { repo, targetBranch: "hotfix" });
    git(work, "fetch", "-q", "origin", "main");
    git(work, "push", "-q", "origin", "FETCH_HEAD:refs/heads/hotfix");
    git(work, "checkout", "-q", "-b", "feature-4", "FETCH_HEAD");
    await writeFile(path.join(work, "change-4.txt"), "change 4\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "Change 4");
    git(work, "push", "-q", "origin", "HEAD:refs/heads/feature-4", "HEAD:refs/pull/4/head");
    await deliver("pull_request", pullRequestOpened(4, "hotfix"));
    await deliver("issue_comment", mergeComment(4));
    const first = await testBranchOf("hotfix", 4);

    // Someone pushes to hotfix outside the queue: the run built on the old head is worthless.
    const before = git(remote, "rev-parse", "refs/heads/hotfix");
    git(work, "checkout", "-q", "-b", "outside", before);
    await writeFile(path.join(work, "outside.txt"), "pushed by hand\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "Outside the queue");
    git(work, "push", "-q", "origin", "HEAD:refs/heads/hotfix");
    const after = git(remote, "rev-parse", "refs/heads/hotfix");
    const push = pushTo("hotfix", before, after);
    const moved = await deliver("push", push);
    expect(moved).to.include({ outcome: "applied" });
    expect(moved.reason).to.match(/moved outside the queue/);
    expect((await deliver("push", push)).reason, "a second delivery of the same push").to.equal(
      "this push was already recorded",
    );
    // A new run, built on the new head.
    let second = first;
    await eventually(async () => {
      second = await testBranchOf("hotfix", 4);
      expect(second.testBranchSha).to.not.equal(first.testBranchSha);
    }, 60_000);
    expect(git(remote, "merge-base", "--is-ancestor", after, second.testBranchSha)).to.equal("");
  });

  it("fails the PR when the check suite on its test branch fails, and says why on the PR", async () => {
    await call("/updateQueue", { repo, targetBranch: "main", mergeMethod: "MERGE_COMMIT" });
    git(work, "fetch", "-q", "origin", "main");
    git(work, "checkout", "-q", "-b", "feature-3", "FETCH_HEAD");
    await writeFile(path.join(work, "change-3.txt"), "change 3\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "Change 3");
    git(work, "push", "-q", "origin", "HEAD:refs/heads/feature-3", "HEAD:refs/pull/3/head");
    const head = git(remote, "rev-parse", "refs/pull/3/head");
    await deliver("pull_request", pullRequestOpened(3, "main"));
    await deliver("issue_comment", mergeComment(3));
    const { testBranch, testBranchSha } = await testBranchOf("main", 3);
    const red = await deliver("check_suite", checkSuiteCompleted(testBranch, testBranchSha, "failure"));
    expect(red.reason).to.match(/failed/);
    await eventually(async () => expect(await stateOf("main", 3)).to.equal("FAILED"), 60_000);
    await eventually(() => {
      const seen = talkBack(3, head);
      expect(seen[0]).to.equal("check queued");
      expect(seen.indexOf("check completed/failure")).to.be.greaterThan(seen.indexOf("check in_progress"));
      expect(seen.at(-1)).to.match(/^comment \*\*Mainline removed this pull request .*its tests failed/);
    }, 30_000);
    double.assertNoViolations();
  });

  describe("requiredStatuses decide from check_run, status and workflow_run deliveries on the test branch", () => {
    before(async () => {
      await queueOnNewBranch("ci", {
        mergeMethod: "MERGE_COMMIT",
        requiredStatuses: ["ci/build", "lint", "Tests"],
      });
    });

    it("passes the run once the required commit status, check run and workflow run all succeeded, whatever else failed", async () => {
      const { testBranch, testBranchSha: sha } = await openPullRequest(11, "ci");
      const status = await deliver("status", commitStatusOf(testBranch, sha, "ci/build", "success"));
      expect(status.outcome, status.reason).to.equal("applied");
      expect(status.reason).to.match(/recorded: waiting for lint, Tests$/);
      expect((await deliver("check_run", checkRun(testBranch, sha, "lint", null))).reason).to.match(
        /waiting for lint, Tests$/,
      );
      expect((await deliver("check_run", checkRun(testBranch, sha, "lint", "success"))).reason).to.match(
        /waiting for Tests$/,
      );
      // A context nobody requires fails: it decides nothing.
      const optional = await deliver("check_run", checkRun(testBranch, sha, "docs", "failure"));
      expect(optional.reason).to.match(/recorded: waiting for Tests$/);
      expect(
        (await deliver("workflow_run", workflowRun(testBranch, sha, "Tests", 901, null))).reason,
      ).to.match(/waiting for Tests$/);
      expect(await stateOf("ci", 11)).to.equal("TESTING");
      const done = await deliver("workflow_run", workflowRun(testBranch, sha, "Tests", 901, "success"));
      expect(done.reason).to.match(/passed: every required status succeeded/);
      await eventually(async () => expect(await stateOf("ci", 11)).to.equal("MERGED"), 60_000);
      const details = await call("/getSubmittedPullRequest", {
        repo,
        targetBranch: "ci",
        pr: { number: 11 },
      });
      expect(details.state).to.equal("MERGED");
      double.assertNoViolations();
    });

    it("fails the run at once when a required check run fails, and when a required commit status errors", async () => {
      const first = await openPullRequest(12, "ci");
      await deliver("status", commitStatusOf(first.testBranch, first.testBranchSha, "ci/build", "success"));
      const red = await deliver(
        "check_run",
        checkRun(first.testBranch, first.testBranchSha, "lint", "timed_out"),
      );
      expect(red.reason).to.match(/failed: lint failed/);
      await eventually(async () => expect(await stateOf("ci", 12)).to.equal("FAILED"), 60_000);

      const second = await openPullRequest(13, "ci");
      const error = await deliver(
        "status",
        commitStatusOf(second.testBranch, second.testBranchSha, "ci/build", "error"),
      );
      expect(error.reason).to.match(/failed: ci\/build failed/);
      await eventually(async () => expect(await stateOf("ci", 13)).to.equal("FAILED"), 60_000);

      const third = await openPullRequest(14, "ci");
      const cancelled = await deliver(
        "workflow_run",
        workflowRun(third.testBranch, third.testBranchSha, "Tests", 902, "cancelled"),
      );
      expect(cancelled.reason).to.match(/failed: Tests failed/);
      await eventually(async () => expect(await stateOf("ci", 14)).to.equal("FAILED"), 60_000);
      double.assertNoViolations();
    });

    it("tells GitHub Actions' check suites apart: a required \"GitHub Actions\" waits for every workflow's suite", async () => {
      await call("/updateQueue", { repo, targetBranch: "ci", requiredStatuses: ["GitHub Actions"] });
      const { testBranch, testBranchSha: sha, testRunId } = await openPullRequest(15, "ci");
      // Two workflows start, each in its own check suite of the one App.
      await deliver("workflow_run", workflowRun(testBranch, sha, "Lint", 1001, null));
      await deliver("workflow_run", workflowRun(testBranch, sha, "Tests", 1002, null));
      // Lint's suite completes: named by the App alone, it stood for the whole App and passed the run.
      const lint = await deliver("check_suite", actionsSuite(testBranch, sha, 1001, "success"));
      expect(lint.reason).to.match(/recorded: waiting for GitHub Actions$/);
      expect(await stateOf("ci", 15)).to.equal("TESTING");
      const tests = await deliver("check_suite", actionsSuite(testBranch, sha, 1002, "failure"));
      expect(tests.reason).to.match(/failed: GitHub Actions failed/);
      await eventually(async () => expect(await stateOf("ci", 15)).to.equal("FAILED"), 60_000);
      const details = await call("/getMergeQueueTestingDetails", { repo, targetBranch: "ci", testRunId });
      expect(JSON.stringify(details)).to.contain("GitHub Actions (check suite 1002)");
      double.assertNoViolations();
    });
  });
});
