import { expect } from "chai";
import { makeTestAppCredentials } from "@mainline/testing";

/** Both organisations use the same repository name: only the token may tell their data apart. */
export const repo = { host: "github.com", owner: "acme", name: "widgets" };
export const main = { repo, targetBranch: "main" };
export const release = { repo, targetBranch: "release" };
export const ALPHA_INSTALLATION = 4242;
export const APP = makeTestAppCredentials(4242);
export const RUN_AT = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000).toISOString();
export const window = {
  start_time: new Date(Date.parse(RUN_AT) - 6 * 3_600_000).toISOString(),
  end_time: new Date(Date.parse(RUN_AT) + 6 * 3_600_000).toISOString(),
};
export const JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="ledger" tests="2" failures="1">
  <testcase classname="ledger.Settlement" name="settles a batch" file="src/ledger.test.ts">
    <failure message="expected 3 to equal 4">AssertionError: expected 3 to equal 4</failure>
  </testcase>
  <testcase classname="ledger.Settlement" name="rounds half up" file="src/ledger.test.ts"/>
</testsuite></testsuites>`;

export function prEvent(number: number, base: string, title: string) {
  return {
    action: "opened",
    number,
    pull_request: {
      title,
      state: "open",
      merged: false,
      user: { login: "dev" },
      head: { ref: `feature-${number}`, sha: String(number).padStart(40, "a") },
      base: { ref: base },
    },
    repository: {
      name: repo.name,
      owner: { login: repo.owner },
      html_url: "https://github.com/acme/widgets",
    },
  };
}

export interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

/** The ids of organisation A's data that organisation B's calls name. */
export interface AlphaIds {
  testRunId: string;
  testId: string;
  subscriptionId: string;
  alphaTokenId: string;
}

/** The test's HTTP calls as the admin, A and B make them. */
export interface OrganizationApi {
  post: (route: string, token: string, body: unknown) => Promise<Answer>;
  ok: (answer: Promise<Answer>, what: string) => Promise<Record<string, unknown>>;
}

/**
 * Organisations A ("alpha") and B ("beta"), each with a token; A gets two queues, a PR under test, a connection,
 * test results, settings and a subscription, all through the API with the admin token.
 */
export async function seedOrganizations(
  { post, ok }: OrganizationApi,
  admin: string,
): Promise<{ alpha: string; beta: string; ids: AlphaIds }> {
  const ids: AlphaIds = { testRunId: "", testId: "", subscriptionId: "", alphaTokenId: "" };
  for (const slug of ["alpha", "beta"]) await ok(post("/admin/organizations", admin, { slug }), slug);
  const alphaToken = await ok(
    post("/admin/tokens", admin, { org: "alpha", description: "ci" }),
    "alpha token",
  );
  const alpha = alphaToken.token as string;
  ids.alphaTokenId = (alphaToken.summary as { id: string }).id;
  const beta = (await ok(post("/admin/tokens", admin, { org: "beta", description: "ci" }), "beta token"))
    .token as string;

  await ok(
    post("/github/installations", admin, { installationId: ALPHA_INSTALLATION, org: "alpha" }),
    "alpha's installation",
  );
  // Organisation A: two queues, a PR under test, a connection, test results, settings, a subscription.
  await ok(post("/createQueue", alpha, { ...main, concurrency: 2 }), "main");
  await ok(post("/createQueue", alpha, release), "release");
  await ok(post("/code-host/pull-request-events", alpha, prEvent(1, "main", "Change 1")), "facts");
  await ok(post("/submitPullRequest", alpha, { ...main, pr: { number: 1 } }), "submit");
  for (let i = 0; i < 200 && !ids.testRunId; i++) {
    const q = await ok(post("/getQueue", alpha, main), "getQueue");
    ids.testRunId = (q.enqueuedPullRequests as { testRunId?: string }[])[0]?.testRunId ?? "";
    if (!ids.testRunId) await new Promise((r) => setTimeout(r, 50));
  }
  expect(ids.testRunId, "alpha's PR is under test").to.not.equal("");
  await ok(
    post("/repositories/connection", alpha, {
      repo,
      remoteUrl: "https://git.example/acme/widgets.git",
      runner: { kind: "EXTERNAL" },
    }),
    "connection",
  );
  await ok(
    post("/flaky-tests/upload", alpha, {
      repo,
      commit_sha: "c".repeat(40),
      branch: "main",
      run_started_at: RUN_AT,
      junit: [JUNIT],
    }),
    "upload",
  );
  await ok(
    post("/flaky-tests/update-repository-settings", alpha, {
      repo,
      min_runs: 7,
      quarantining_enabled: true,
    }),
    "settings",
  );
  const listed = await ok(
    post("/flaky-tests/list-failing-tests", alpha, {
      repo,
      org_url_slug: "alpha",
      ...window,
      page_query: { page_size: 10 },
    }),
    "list",
  );
  ids.testId = (listed.tests as { id: string }[])[0]?.id ?? "";
  expect(ids.testId, "alpha has a failing test").to.not.equal("");
  await ok(
    post("/flaky-tests/set-quarantine-override", alpha, {
      repo,
      test_id: ids.testId,
      override: "ALWAYS_QUARANTINE",
    }),
    "override",
  );
  await ok(
    post("/flaky-tests/link-ticket", alpha, {
      repo,
      test_id: ids.testId,
      url: "https://tickets.example/1",
    }),
    "ticket",
  );
  await ok(
    post("/flaky-tests/set-codeowners", alpha, { repo, content: "src/ @acme/ledger\n" }),
    "codeowners",
  );
  const subscription = await ok(
    // An event nothing in this test emits, so A's delivery log stays empty unless B gets a test event in.
    post("/webhooks/subscriptions", alpha, {
      url: "http://127.0.0.1:9/alpha",
      eventTypes: ["pull_request_batch.merged"],
    }),
    "subscription",
  );
  ids.subscriptionId = (subscription.subscription as { id: string }).id;
  return { alpha, beta, ids };
}
