import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { contractCheckedFetch, freePortBlock, type CheckedFetch } from "@mainline/testing";
import { startSystem, waitForHttp, type RunningSystem } from "../../src/dev/system.js";
import {
  ALPHA_INSTALLATION,
  APP,
  JUNIT,
  main,
  prEvent,
  release,
  repo,
  RUN_AT,
  seedOrganizations,
  window,
  type Answer,
} from "./organizations.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Organisation A's data is set up through the API; then every operation of the OpenAPI document is called with
 * organisation B's token, aimed at A's data (same repository, A's PR, queue, test run, test, subscription and
 * token ids). B must be refused (404 / 403; 401 where the spec says so) or act only on its own namespace, and
 * A's data must read the same afterwards. A new operation without a case here fails the test.
 */
describe("organisations are isolated on every endpoint (the whole system, one token per organisation)", function () {
  this.timeout(120_000);
  let dataDir: string;
  let system: RunningSystem;
  let checkedFetch: CheckedFetch;
  let alpha: string;
  let beta: string;
  const ids = { testRunId: "", testId: "", subscriptionId: "", alphaTokenId: "" };

  const call = async (method: string, route: string, token: string, body?: unknown): Promise<Answer> => {
    const response = await checkedFetch(`${system.apiUrl}${route}`, {
      method,
      headers: {
        "x-api-token": token,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes("json")
      ? (JSON.parse(text) as Record<string, unknown>)
      : {};
    return { status: response.status, text, json };
  };
  const post = (route: string, token: string, body: unknown) => call("POST", route, token, body);
  const ok = async (answer: Promise<Answer>, what: string) => {
    const a = await answer;
    expect(a.status, `${what}: ${a.text}`).to.be.within(200, 299);
    return a.json;
  };

  /** Everything of A's that B's calls could touch, as A reads it. */
  const snapshotOfAlpha = async () => ({
    mainQueue: await ok(post("/getQueue", alpha, main), "getQueue main"),
    releaseQueue: await ok(post("/getQueue", alpha, release), "getQueue release"),
    pr: await ok(post("/getSubmittedPullRequest", alpha, { ...main, pr: { number: 1 } }), "pr 1"),
    run: await ok(post("/getMergeQueueTestingDetails", alpha, { ...main, testRunId: ids.testRunId }), "run"),
    connection: await ok(post("/repositories/getConnection", alpha, { repo }), "connection"),
    settings: await ok(post("/flaky-tests/get-repository-settings", alpha, { repo }), "settings"),
    quarantine: await ok(post("/flaky-tests/get-quarantine-config", alpha, { repo }), "quarantine"),
    tests: (
      await ok(
        post("/flaky-tests/list-failing-tests", alpha, {
          repo,
          org_url_slug: "alpha",
          ...window,
          page_query: { page_size: 100 },
        }),
        "failing tests",
      )
    ).tests,
    subscriptions: await ok(call("GET", "/webhooks/subscriptions", alpha), "subscriptions"),
    deliveries: await ok(
      call("GET", `/webhooks/deliveries?subscriptionId=${ids.subscriptionId}`, alpha),
      "deliveries",
    ),
    tokens: await ok(call("GET", "/admin/tokens", alpha), "tokens"),
    github: await ok(call("GET", "/github/status", alpha), "github status"),
  });

  const refused = (a: Answer, statuses = [403, 404]): void => {
    expect(statuses, `${a.status} ${a.text}`).to.include(a.status);
  };

  /** One case per operation of the OpenAPI document, B's token against A's data. */
  const cases: Record<string, () => Promise<void>> = {
    liveness: async () => {
      expect((await call("GET", "/healthz", beta)).json).to.deep.equal({ status: "ok" });
    },
    readiness: async () => {
      expect((await call("GET", "/readyz", beta)).status).to.equal(200);
    },
    getOpenApiDocument: async () => {
      expect((await call("GET", "/openapi.json", beta)).status).to.equal(200);
    },
    // Merge queue: B has no queue on A's branches; the same repository name gives it nothing of A's.
    submitPullRequest: async () =>
      refused(await post("/submitPullRequest", beta, { ...main, pr: { number: 1 } })),
    cancelPullRequest: async () =>
      refused(await post("/cancelPullRequest", beta, { ...main, pr: { number: 1 } })),
    restartTestsOnPullRequest: async () =>
      refused(await post("/restartTestsOnPullRequest", beta, { ...main, pr: { number: 1 } })),
    setPullRequestPriority: async () =>
      refused(
        await post("/setPullRequestPriority", beta, { ...main, pr: { number: 1 }, priority: "urgent" }),
      ),
    getSubmittedPullRequest: async () => {
      refused(await post("/getSubmittedPullRequest", beta, { ...main, pr: { number: 1 } }));
      refused(await post("/getSubmittedPullRequest", beta, { ...main, pr: { branch: "feature-1" } }));
    },
    setImpactedTargets: async () =>
      refused(
        await post("/setImpactedTargets", beta, {
          ...main,
          pr: { number: 1, sha: "a".repeat(40) },
          impactedTargets: ["hijacked"],
        }),
      ),
    getMergeQueueTestingDetails: async () =>
      refused(await post("/getMergeQueueTestingDetails", beta, { ...main, testRunId: ids.testRunId })),
    // A run of A's, named by its id alone: B learns nothing, not even that it exists.
    getTestRunOutput: async () =>
      refused(await call("GET", `/test-runs/${ids.testRunId}/output`, beta), [404]),
    getQueue: async () => refused(await post("/getQueue", beta, release)),
    // A's release queue exists; B's list never shows it (B has no queue on release of its own).
    listQueues: async () => {
      const listed = (await ok(post("/listQueues", beta, {}), "beta's queues")).queues as {
        branch: string;
      }[];
      expect(listed.map((q) => q.branch)).to.not.include(release.targetBranch);
      const mine = (await ok(post("/listQueues", alpha, { repo }), "alpha's queues")).queues as {
        branch: string;
      }[];
      expect(mine.map((q) => q.branch)).to.include(release.targetBranch);
    },
    // Issue 29: A's queue is not B's to chart, and B's overview counts none of A's queues.
    getQueueInsights: async () => {
      const insights = { repository: repo, targetBranch: release.targetBranch, period: "7d", bucket: "day" };
      refused(await post("/insights/queue", beta, insights));
      const overview = await ok(post("/insights/queue", beta, { period: "24h", bucket: "hour" }), "overview");
      expect(overview.queues).to.not.include(`${repo.host}/${repo.owner}/${repo.name} release`);
    },
    // B has no queue on A's branches (its own main queue comes with createQueue's case, below).
    listFinishedPullRequests: async () => {
      refused(await post("/listFinishedPullRequests", beta, release));
      refused(await post("/listFinishedPullRequests", beta, { ...main, search: "1" }));
    },
    updateQueue: async () => refused(await post("/updateQueue", beta, { ...release, concurrency: 9 })),
    deleteQueue: async () => refused(await post("/deleteQueue", beta, release)),
    // Creating on the same repository and branch makes B's own queue, never touching A's.
    createQueue: async () => {
      await ok(post("/createQueue", beta, { ...main, concurrency: 4 }), "beta's own queue");
      expect(await ok(post("/getQueue", beta, main), "beta's queue")).to.deep.include({
        concurrency: 4,
        enqueuedPullRequests: [],
      });
    },
    getMergeQueueMetrics: async () => {
      const metrics = await call("GET", `/getMergeQueueMetrics?repo=acme/widgets&repoHost=github.com`, beta);
      expect(metrics.status, metrics.text).to.equal(200);
      expect(metrics.text).to.not.contain('branch="release"');
    },
    // Code host: B's facts and connection live in B's namespace.
    recordPullRequestEvent: async () =>
      void (await ok(post("/code-host/pull-request-events", beta, prEvent(1, "release", "hijack")), "facts")),
    handleCommentCommand: async () => {
      const event = {
        action: "created",
        issue: { number: 1, pull_request: { url: "https://api.github.com/repos/acme/widgets/pulls/1" } },
        comment: { body: "/svc cancel", user: { login: "intruder" } },
        repository: prEvent(1, "main", "").repository,
      };
      const answer = await ok(post("/code-host/comment-events", beta, event), "comment");
      expect(answer.outcome).to.not.equal("applied");
    },
    getRepositoryConnection: async () => refused(await post("/repositories/getConnection", beta, { repo })),
    setRepositoryConnection: async () =>
      void (await ok(
        post("/repositories/connection", beta, {
          repo,
          remoteUrl: "https://evil.example/widgets.git",
          runner: { kind: "EXTERNAL" },
        }),
        "beta's connection",
      )),
    reportTestRun: async () =>
      refused(await post("/reportTestRun", beta, { testRunId: ids.testRunId, passed: false })),
    // Flaky tests: naming A's slug is unauthorised (the spec's 401); A's test ids are unknown to B.
    listFailingTests: async () => {
      const body = { repo, ...window, page_query: { page_size: 100 } };
      refused(
        await post("/flaky-tests/list-failing-tests", beta, { ...body, org_url_slug: "alpha" }),
        [401, 403, 404],
      );
      const own = await ok(
        post("/flaky-tests/list-failing-tests", beta, { ...body, org_url_slug: "beta" }),
        "own",
      );
      expect(own.tests).to.deep.equal([]);
    },
    listFlakyTestRepositories: async () => {
      // B uploads nothing before uploadTestResults' case, below: A's repository is not B's.
      const listed = await ok(post("/flaky-tests/list-repositories", beta, {}), "beta's repositories");
      expect(listed.repositories).to.deep.equal([]);
      const mine = await ok(post("/flaky-tests/list-repositories", alpha, {}), "alpha's repositories");
      expect(mine.repositories).to.deep.equal([repo]);
    },
    uploadTestResults: async () =>
      void (await ok(
        post("/flaky-tests/upload", beta, {
          repo,
          commit_sha: "b".repeat(40),
          branch: "main",
          run_started_at: RUN_AT,
          junit: [
            JUNIT.replace(
              '<testcase classname="ledger.Settlement" name="rounds half up" file="src/ledger.test.ts"/>',
              "",
            ),
          ],
        }),
        "beta's upload",
      )),
    getQuarantineConfig: async () => {
      const own = await ok(post("/flaky-tests/get-quarantine-config", beta, { repo }), "beta's config");
      expect(own.testIds).to.not.include(ids.testId);
    },
    getFlakyRepositorySettings: async () => {
      const own = await ok(post("/flaky-tests/get-repository-settings", beta, { repo }), "beta's settings");
      expect(own.min_runs).to.not.equal(7);
    },
    updateFlakyRepositorySettings: async () =>
      void (await ok(post("/flaky-tests/update-repository-settings", beta, { repo, min_runs: 2 }), "beta's")),
    setTestQuarantineOverride: async () =>
      refused(
        await post("/flaky-tests/set-quarantine-override", beta, {
          repo,
          test_id: ids.testId,
          override: "NEVER_QUARANTINE",
        }),
      ),
    // A's test, named by its id: B's repository of the same name does not know it.
    getTest: async () =>
      refused(await post("/flaky-tests/get-test", beta, { repo, test_id: ids.testId }), [404]),
    // Issue 29: B's charts of a repository of the same name count none of A's tests, and A's test is unknown to B.
    getTestInsights: async () => {
      const own = await ok(
        post("/insights/tests", beta, { repository: repo, period: "90d", bucket: "day" }),
        "b",
      );
      expect((own.costliest as { test_id: string }[]).map((t) => t.test_id)).to.not.include(ids.testId);
    },
    getTestTrend: async () => {
      const trend = { repository: repo, test_id: ids.testId, period: "7d", bucket: "day" };
      refused(await post("/insights/test", beta, trend), [404]);
    },
    linkTestTicket: async () =>
      refused(
        await post("/flaky-tests/link-ticket", beta, {
          repo,
          test_id: ids.testId,
          url: "https://evil.example/1",
        }),
      ),
    setCodeowners: async () =>
      void (await ok(
        post("/flaky-tests/set-codeowners", beta, { repo, content: "* @intruder\n" }),
        "codeowners",
      )),
    // Administration: an ordinary token manages only its own organisation.
    createOrganization: async () => refused(await post("/admin/organizations", beta, { slug: "gamma" })),
    listOrganizations: async () => refused(await call("GET", "/admin/organizations", beta)),
    createToken: async () => {
      refused(await post("/admin/tokens", beta, { org: "alpha", description: "intruder" }));
      refused(await post("/admin/tokens", beta, { description: "escalate", admin: true }));
    },
    listTokens: async () => {
      refused(await call("GET", "/admin/tokens?org=alpha", beta));
      const own = await ok(call("GET", "/admin/tokens", beta), "beta's tokens");
      expect((own.tokens as { org: string }[]).map((t) => t.org)).to.deep.equal(["beta"]);
    },
    revokeToken: async () => {
      refused(await post("/admin/tokens/revoke", beta, { id: ids.alphaTokenId }));
      refused(await post("/admin/tokens/revoke", beta, { id: ids.alphaTokenId, org: "alpha" }));
    },
    // Webhooks: A's subscription id means nothing to B.
    createWebhookSubscription: async () =>
      void (await ok(
        post("/webhooks/subscriptions", beta, {
          url: "http://127.0.0.1:9/beta",
          eventTypes: ["pull_request.merged"],
        }),
        "beta's subscription",
      )),
    listWebhookSubscriptions: async () => {
      const own = await ok(call("GET", "/webhooks/subscriptions", beta), "beta's subscriptions");
      expect((own.subscriptions as { id: string }[]).map((s) => s.id)).to.not.include(ids.subscriptionId);
    },
    sendWebhookTestEvent: async () =>
      refused(await post("/webhooks/subscriptions/test", beta, { id: ids.subscriptionId })),
    enableWebhookSubscription: async () =>
      refused(await post("/webhooks/subscriptions/enable", beta, { id: ids.subscriptionId })),
    listWebhookDeliveries: async () =>
      refused(await call("GET", `/webhooks/deliveries?subscriptionId=${ids.subscriptionId}`, beta)),
    deleteWebhookSubscription: async () =>
      refused(await call("DELETE", `/webhooks/subscriptions?id=${ids.subscriptionId}`, beta)),
    // GitHub App: A's installation is A's; B's token neither moves it nor sees it, and is no webhook credential.
    connectGitHubInstallation: async () =>
      refused(await post("/github/installations", beta, { installationId: ALPHA_INSTALLATION, org: "beta" })),
    disconnectGitHubInstallation: async () =>
      refused(await post("/github/installations/disconnect", beta, { installationId: ALPHA_INSTALLATION })),
    getGitHubStatus: async () => {
      const status = await ok(call("GET", "/github/status", beta), "beta's GitHub status");
      expect(status.installations).to.deep.equal([]);
      expect(status).to.not.have.property("unclaimedInstallations");
    },
    listGitHubCalls: async () => {
      const own = await ok(call("GET", "/github/calls?limit=200", beta), "beta's GitHub calls");
      expect(own.calls, "only beta's own calls, and beta has none").to.deep.equal([]);
    },
    receiveGitHubWebhook: async () =>
      refused(await post("/github/webhooks", beta, prEvent(1, "main", "hijack")), [401]),
  };

  before(async function () {
    dataDir = await mkdtemp(path.join(tmpdir(), "mainline-orgs-"));
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
        WEBHOOKS_ALLOW_LOOPBACK: "true",
        // The GitHub App is on (its API unreachable: nothing here needs GitHub to answer).
        GITHUB_APP_ID: String(APP.appId),
        GITHUB_APP_PRIVATE_KEY: APP.privateKey,
        GITHUB_WEBHOOK_SECRET: "cross-organization webhook secret",
        GITHUB_API_URL: "http://127.0.0.1:9",
      },
      output: () => undefined,
      log: () => undefined,
    });
    expect(await waitForHttp(`${system.apiUrl}/readyz`, 90_000), "every service ready").to.equal(true);
    checkedFetch = contractCheckedFetch(system.apiUrl);
    const seeded = await seedOrganizations({ post, ok }, system.apiToken);
    ({ alpha, beta } = seeded);
    Object.assign(ids, seeded.ids);
  });

  after(async () => {
    await system?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("has a case for every operation of the OpenAPI document", async () => {
    const operations = (await checkedFetch.contract()).operations().map((o) => o.operationId);
    expect(Object.keys(cases).sort()).to.deep.equal([...operations].sort());
  });

  it("refuses organisation B every read and change of organisation A's data, and A's data is unchanged", async () => {
    const before = await snapshotOfAlpha();
    expect((before.quarantine as { testIds: string[] }).testIds).to.include(ids.testId);
    const failures: string[] = [];
    for (const [operationId, run] of Object.entries(cases)) {
      await run().catch((error: unknown) => failures.push(`${operationId}: ${(error as Error).message}`));
    }
    // Checked even when a case failed, so a leak that also changed A's data says so.
    const after = await snapshotOfAlpha();
    for (const key of Object.keys(before) as (keyof typeof before)[]) {
      if (JSON.stringify(after[key]) !== JSON.stringify(before[key]))
        failures.push(
          `alpha's ${key} changed: ${JSON.stringify(before[key])} -> ${JSON.stringify(after[key])}`,
        );
    }
    expect(failures, failures.join("\n")).to.deep.equal([]);
  });
});
