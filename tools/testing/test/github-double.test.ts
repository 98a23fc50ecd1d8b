import { expect } from "chai";
import { sign } from "node:crypto";
import {
  GitHubContractViolation,
  GitHubDouble,
  makeTestAppCredentials,
  secondaryRateLimit,
  type TestAppCredentials,
} from "../src/github-double/index.js";

function appJwt(
  app: TestAppCredentials,
  claims: Partial<{ iat: number; exp: number; iss: string }> = {},
): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg: "RS256", typ: "JWT" })}.${part({ iat: now - 30, exp: now + 540, iss: String(app.appId), ...claims })}`;
  return `${unsigned}.${sign("RSA-SHA256", Buffer.from(unsigned), app.privateKey).toString("base64url")}`;
}

async function call(double: GitHubDouble, method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${double.url}${path}`, {
    method,
    headers: {
      accept: "application/vnd.github+json",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: token } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

describe("GitHub double", function () {
  this.timeout(60_000);
  let double: GitHubDouble;

  describe("against api.github.com's description", () => {
    before(async () => {
      double = await GitHubDouble.start();
    });
    after(async () => {
      await double.stop();
    });
    beforeEach(() => {
      double.requests.length = 0;
      double.violations.length = 0;
    });

    it("answers an allowed call with the description's example, a fresh id and the request's own fields", async () => {
      const created = await call(double, "POST", "/repos/acme/widgets/check-runs", {
        name: "mainline",
        head_sha: "a".repeat(40),
        status: "queued",
        output: { title: "Queued", summary: "Position 1 in the queue" },
      });
      expect(created.status).to.equal(201);
      expect(created.body.name).to.equal("mainline");
      expect(created.body.head_sha).to.equal("a".repeat(40));
      expect(created.body.id).to.be.a("number");
      const again = await call(double, "POST", "/repos/acme/widgets/check-runs", {
        name: "x",
        head_sha: "b",
      });
      expect(again.body.id).to.not.equal(created.body.id);
      const comment = await call(double, "POST", "/repos/acme/widgets/issues/7/comments", { body: "hello" });
      expect(comment.status).to.equal(201);
      expect(comment.body.body).to.equal("hello");
      expect(double.requests.map((r) => r.operationId)).to.deep.equal([
        "checks/create",
        "checks/create",
        "issues/create-comment",
      ]);
      expect(
        double.calls("POST /repos/{owner}/{repo}/issues/{issue_number}/comments")[0]?.pathParams,
      ).to.deep.equal({
        owner: "acme",
        repo: "widgets",
        issue_number: "7",
      });
      double.assertNoViolations();
    });

    it("prefers a literal path segment over a parameter (pulls/comments is not pull number 'comments')", async () => {
      const listed = await call(double, "GET", "/repos/acme/widgets/pulls/comments?per_page=10");
      expect(listed.status).to.equal(200);
      expect(double.requests[0]?.operationId).to.equal("pulls/list-review-comments-for-repo");
      double.assertNoViolations();
    });

    it("refuses a body of the wrong shape with 422 and records the violation by field", async () => {
      const wrong = await call(double, "POST", "/repos/acme/widgets/check-runs", {
        name: "x",
        status: "bogus",
      });
      expect(wrong.status).to.equal(422);
      expect(() => double.assertNoViolations())
        .to.throw(GitHubContractViolation)
        .with.property("message")
        .that.matches(/head_sha/)
        .and.matches(/status/);
    });

    it("refuses a body field the operation does not declare (GitHub would drop it silently)", async () => {
      await call(double, "POST", "/repos/acme/widgets/issues/7/comments", { body: "hi", bodyy: "typo" });
      expect(double.violations.join()).to.match(/body field "bodyy" is not declared/);
    });

    it("refuses a missing body, an unknown path, a wrong method and a non-integer path parameter", async () => {
      expect((await call(double, "POST", "/repos/acme/widgets/issues/7/comments")).status).to.equal(422);
      expect((await call(double, "GET", "/repos/acme/widgets/no-such-thing")).status).to.equal(404);
      expect((await call(double, "DELETE", "/repos/acme/widgets/check-runs", {})).status).to.equal(404);
      expect(
        (await call(double, "POST", "/repos/acme/widgets/issues/seven/comments", { body: "x" })).status,
      ).to.equal(422);
      expect(double.violations).to.have.length(4);
      expect(double.violations[0]).to.match(/requires a JSON body/);
      expect(double.violations[1]).to.match(/no path of GitHub's description matches/);
      expect(double.violations[2]).to.match(/DELETE is not an operation/);
      expect(double.violations[3]).to.match(/issue_number/);
    });

    it("refuses a missing required query parameter and an undeclared one", async () => {
      await call(double, "GET", "/search/issues");
      await call(double, "GET", "/repos/acme/widgets/pulls?colour=blue");
      expect(double.violations[0]).to.match(/must have required property 'q'/);
      expect(double.violations[1]).to.match(/query parameter "colour" is not declared/);
    });

    it("plays a scripted rate limit once, then answers as usual", async () => {
      double.script("issues/create-comment", secondaryRateLimit(2));
      const limited = await call(double, "POST", "/repos/acme/widgets/issues/7/comments", { body: "one" });
      expect(limited.status).to.equal(403);
      expect(limited.headers.get("retry-after")).to.equal("2");
      const next = await call(double, "POST", "/repos/acme/widgets/issues/7/comments", { body: "one" });
      expect(next.status).to.equal(201);
      expect(double.requests.map((r) => r.status)).to.deep.equal([403, 201]);
      double.assertNoViolations();
    });

    it("lets a script answer from the request (state a test sets up)", async () => {
      double.script(
        "pulls/get",
        (request) => ({
          status: 200,
          body: { number: Number(request.pathParams.pull_number), merged: true },
        }),
        Infinity,
      );
      expect((await call(double, "GET", "/repos/acme/widgets/pulls/12")).body).to.deep.equal({
        number: 12,
        merged: true,
      });
      expect((await call(double, "GET", "/repos/acme/widgets/pulls/13")).body.number).to.equal(13);
    });
  });

  describe("with an App and its installations", () => {
    const app = makeTestAppCredentials(77);
    const other = makeTestAppCredentials(77);
    before(async () => {
      double = await GitHubDouble.start({
        app,
        installations: [
          { id: 1, account: "acme", repositories: ["acme/widgets"] },
          { id: 2, account: "globex", repositories: ["globex/gadgets"] },
        ],
      });
    });
    after(async () => {
      await double.stop();
    });
    beforeEach(() => {
      double.requests.length = 0;
      double.violations.length = 0;
    });

    it("issues an installation token for the App's JWT, which then reaches only its installation's repositories", async () => {
      const issued = await call(
        double,
        "POST",
        "/app/installations/1/access_tokens",
        undefined,
        `Bearer ${appJwt(app)}`,
      );
      expect(issued.status).to.equal(201);
      expect(issued.body.token).to.match(/^ghs_/);
      expect(Date.parse(String(issued.body.expires_at))).to.be.greaterThan(Date.now() + 3_500_000);
      const token = `token ${String(issued.body.token)}`;
      expect(
        (await call(double, "POST", "/repos/acme/widgets/issues/1/comments", { body: "ok" }, token)).status,
      ).to.equal(201);
      expect(double.requests[1]?.credential).to.equal(1);
      double.assertNoViolations();
      const across = await call(
        double,
        "POST",
        "/repos/globex/gadgets/issues/1/comments",
        { body: "no" },
        token,
      );
      expect(across.status).to.equal(401);
      expect(double.violations.join()).to.match(/installation 1's token used on globex\/gadgets/);
    });

    it("refuses a JWT of another key, an expired or too long-lived one, and an unknown installation", async () => {
      const now = Math.floor(Date.now() / 1000);
      for (const jwt of [appJwt(other), appJwt(app, { exp: now - 1 }), appJwt(app, { exp: now + 3600 })])
        expect(
          (await call(double, "POST", "/app/installations/1/access_tokens", undefined, `Bearer ${jwt}`))
            .status,
        ).to.equal(401);
      expect(double.violations.map((v) => v.replace(/^.*: /, ""))).to.deep.equal([
        "the App JWT's signature is not the App's key",
        "the App JWT has expired",
        "the App JWT is valid for more than ten minutes",
      ]);
      expect(
        (await call(double, "POST", "/app/installations/9/access_tokens", undefined, `Bearer ${appJwt(app)}`))
          .status,
      ).to.equal(404);
    });

    it("refuses an expired or unknown installation token", async () => {
      const { token } = double.issueToken(1, -1);
      expect(
        (await call(double, "GET", "/repos/acme/widgets/pulls/1", undefined, `token ${token}`)).status,
      ).to.equal(401);
      expect(
        (await call(double, "GET", "/repos/acme/widgets/pulls/1", undefined, "token ghs_made_up")).status,
      ).to.equal(401);
      expect(double.violations[0]).to.match(/expired installation token/);
      expect(double.violations[1]).to.match(/needs an installation token the double issued/);
    });
  });

  it("speaks Enterprise Server's description under /api/v3", async () => {
    const ghes = await GitHubDouble.start({ flavour: "ghes-3.19" });
    try {
      expect(ghes.url).to.match(/\/api\/v3$/);
      const created = await call(ghes, "POST", "/repos/acme/widgets/statuses/" + "c".repeat(40), {
        state: "pending",
        context: "mainline",
        description: "Queued",
      });
      expect(created.status).to.equal(201);
      expect((await fetch(ghes.url.replace("/api/v3", "/repos/acme/widgets/pulls/1"))).status).to.equal(404);
      expect(ghes.violations).to.have.length(1);
      expect(ghes.violations[0]).to.match(/outside the API's base path/);
    } finally {
      await ghes.stop();
    }
  });
});
