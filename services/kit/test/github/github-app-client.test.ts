import { expect } from "chai";
import { Writable } from "node:stream";
import {
  GitHubDouble,
  makeTestAppCredentials,
  rejection,
  secondaryRateLimit,
  serverError,
  tooManyRequests,
  freePort,
} from "@mainline/testing";
import { createLogger } from "../../src/logging/index.js";
import {
  GitHubAppClient,
  GitHubRetryableError,
  GitHubTerminalError,
  type GitHubAppClientOptions,
} from "../../src/github/index.js";

const app = makeTestAppCredentials(31337);
const installations = [
  { id: 11, account: "acme", repositories: ["acme/widgets"] },
  { id: 12, account: "globex", repositories: ["globex/gadgets"] },
];

/** Everything the client logs, to check that no token ever reaches a log line. */
function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString("utf8"));
      done();
    },
  });
  return { logger: createLogger("test", "debug", destination), lines };
}

describe("GitHubAppClient against the GitHub double", function () {
  this.timeout(60_000);
  let double: GitHubDouble;
  let log: ReturnType<typeof capturedLogger>;

  const client = (overrides: Partial<GitHubAppClientOptions> = {}, url = double.url) =>
    new GitHubAppClient({
      settings: { appId: app.appId, privateKey: app.privateKey, webhookSecret: undefined, apiUrl: url },
      logger: log.logger,
      writeSpacingMs: 0,
      notificationSpacingMs: 0,
      retryUnitMs: 20,
      ...overrides,
    });
  const comment = (github: GitHubAppClient, installationId = 11, repo = "acme/widgets", body = "hello") => {
    const [owner = "", name = ""] = repo.split("/");
    return github.call("comment", () =>
      github
        .installation(installationId)
        .request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          owner,
          repo: name,
          issue_number: 5,
          body,
        }),
    );
  };

  beforeEach(async () => {
    log = capturedLogger();
    double = await GitHubDouble.start({ app, installations });
  });
  afterEach(async () => {
    try {
      double.assertNoViolations();
    } finally {
      await double.stop();
    }
  });

  it("mints an installation token with the App's JWT once and reuses it for later calls", async () => {
    const github = client();
    const first = await comment(github);
    expect(first.status).to.equal(201);
    expect(first.data.body).to.equal("hello");
    await comment(github);
    await comment(github);
    expect(double.requests.map((r) => r.operationId)).to.deep.equal([
      "apps/create-installation-access-token",
      "issues/create-comment",
      "issues/create-comment",
      "issues/create-comment",
    ]);
    expect(double.requests[0]?.credential).to.equal("app");
    expect(double.requests.slice(1).map((r) => r.credential)).to.deep.equal([11, 11, 11]);
    double.assertNoViolations();
  });

  it("refreshes the token before it expires, going by GitHub's expires_at", async () => {
    await double.stop();
    double = await GitHubDouble.start({ app, installations, tokenLifetimeSeconds: 10 });
    // Tokens living 10 s (GitHub's expires_at has whole seconds), dropped 5 s before expiry: the cached one is good
    // for 4 to 5 s, long enough for two calls on a loaded machine (1 s was not).
    const github = client({ refreshTokenBeforeMs: 5000 });
    await comment(github);
    await comment(github);
    await new Promise((resolve) => setTimeout(resolve, 5500));
    await comment(github);
    expect(double.calls("apps/create-installation-access-token")).to.have.length(2);
    double.assertNoViolations();
  });

  it("keeps installations apart: each call carries its own installation's token", async () => {
    const github = client();
    await comment(github, 11, "acme/widgets");
    await comment(github, 12, "globex/gadgets");
    expect(double.calls("issues/create-comment").map((r) => r.credential)).to.deep.equal([11, 12]);
    double.assertNoViolations();
  });

  it("hands out a token for git, and never writes a token into a log line", async () => {
    const github = client();
    const { token, expiresAt } = await github.installationToken(11);
    expect(token).to.match(/^ghs_/);
    expect(expiresAt.getTime()).to.be.greaterThan(Date.now());
    double.script("issues/create-comment", serverError(502), 4);
    expect(await rejection(comment(github))).to.be.instanceOf(GitHubRetryableError);
    double.script("POST /app/installations/{installation_id}/access_tokens", secondaryRateLimit(1));
    await comment(github, 12, "globex/gadgets");
    expect(log.lines.length).to.be.greaterThan(0);
    expect(log.lines.join("\n")).to.not.contain(token);
    expect(log.lines.join("\n")).to.not.match(/ghs_/);
  });

  it("waits out a secondary rate limit for its retry-after, then succeeds", async () => {
    const github = client();
    await github.installationToken(11);
    double.script("issues/create-comment", secondaryRateLimit(1));
    const answer = await comment(github);
    expect(answer.status).to.equal(201);
    const [limited, retried] = double.calls("issues/create-comment");
    expect([limited?.status, retried?.status]).to.deep.equal([403, 201]);
    expect(retried!.receivedAt - limited!.receivedAt).to.be.at.least(900);
    expect(log.lines.join()).to.match(/secondary rate limit: waiting/);
  });

  it("hands a long rate limit and a 429 back as retryable, with GitHub's retry-after", async () => {
    const github = client({ maxInlineWaitMs: 5_000 });
    double.script("issues/create-comment", secondaryRateLimit(120));
    const limited = await rejection(comment(github));
    expect(limited).to.be.instanceOf(GitHubRetryableError);
    expect((limited as GitHubRetryableError).retryAfterMs).to.equal(120_000);
    expect((limited as GitHubRetryableError).status).to.equal(403);

    double.script("issues/create-comment", tooManyRequests(7));
    const tooMany = await rejection(comment(github));
    expect(tooMany).to.be.instanceOf(GitHubRetryableError);
    expect((tooMany as GitHubRetryableError).retryAfterMs).to.equal(7_000);
    expect(double.calls("issues/create-comment")).to.have.length(2);
  });

  it("retries a 5xx a few times before giving up as retryable", async () => {
    const github = client();
    double.script("issues/create-comment", serverError(502), 2);
    expect((await comment(github)).status).to.equal(201);
    expect(double.calls("issues/create-comment").map((r) => r.status)).to.deep.equal([502, 502, 201]);

    double.script("issues/create-comment", serverError(503), Infinity);
    const error = await rejection(comment(github));
    expect(error).to.be.instanceOf(GitHubRetryableError);
    expect((error as Error).message).to.match(/comment: GitHub answered 503/);
  });

  it("reports a refusal GitHub will repeat as terminal, with the reason", async () => {
    const github = client();
    double.script("issues/create-comment", { status: 404, body: { message: "Not Found" } });
    const missing = await rejection(comment(github));
    expect(missing).to.be.instanceOf(GitHubTerminalError);
    expect((missing as GitHubTerminalError).code).to.equal("NOT_FOUND");
    // The double answers 422 to a body GitHub's description does not allow (and records the violation).
    const invalid = await rejection(
      github.call("bad check run", () =>
        github.installation(11).request("POST /repos/{owner}/{repo}/check-runs", {
          owner: "acme",
          repo: "widgets",
          name: "mainline",
        } as never),
      ),
    );
    expect(invalid).to.be.instanceOf(GitHubTerminalError);
    expect((invalid as GitHubTerminalError).code).to.equal("INVALID_ARGUMENT");
    expect(double.violations.join()).to.match(/head_sha/);
    double.violations.length = 0;
  });

  it("reports an unreachable GitHub as retryable", async () => {
    const github = client({}, `http://127.0.0.1:${await freePort()}`);
    const error = await rejection(comment(github));
    expect(error).to.be.instanceOf(GitHubRetryableError);
  });

  it("talks to Enterprise Server under /api/v3, checked against its own description", async () => {
    const ghes = await GitHubDouble.start({ flavour: "ghes-3.19", app, installations });
    try {
      const github = client({}, ghes.url);
      expect((await comment(github)).status).to.equal(201);
      expect(ghes.requests.map((r) => r.path)).to.deep.equal([
        "/app/installations/11/access_tokens",
        "/repos/acme/widgets/issues/5/comments",
      ]);
      ghes.assertNoViolations();
    } finally {
      await ghes.stop();
    }
  });
});
