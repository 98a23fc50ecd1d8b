import { expect } from "chai";
import { request, type IncomingMessage } from "node:http";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };

/** Reads a raw node:http answer and checks it against the API document like every fetch of the harness. */
async function checkedRawAnswer(gw: GatewayHarness, path: string, res: IncomingMessage): Promise<number> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const status = res.statusCode ?? 0;
  (await gw.contract()).check(
    "POST",
    new URL(`${gw.url}${path}`).pathname,
    status,
    res.headers["content-type"] ?? null,
    Buffer.concat(chunks).toString("utf8"),
  );
  return status;
}

describe("gateway: authentication, validation and body limits", () => {
  let gw: GatewayHarness;
  let token: string;

  before(async () => {
    gw = await GatewayHarness.start();
    token = await gw.organization("acme");
  });
  after(() => gw.stop());

  it("answers 401 with a plain-text body when the token is missing or unknown", async () => {
    const missing = await gw.post("/getQueue", { repo, targetBranch: "main" });
    expect(missing.status).to.equal(401);
    expect(missing.headers.get("content-type")).to.match(/^application\/plain-text/);
    expect(await missing.text()).to.match(/^Unauthorized/);
    const unknown = await gw.post("/getQueue", { repo, targetBranch: "main" }, "mlt_000000000000_nope");
    expect(unknown.status).to.equal(401);
  });

  it("accepts the same token as a bearer token (for Prometheus scrapes)", async () => {
    const response = await gw.fetch(`${gw.url}/getMergeQueueMetrics?repo=acme/widgets`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // Authenticated, then refused for the missing repoHost: the token was accepted.
    expect(response.status).to.equal(400);
    expect(await response.text()).to.match(/^repoHost: is required when repo is given/);
  });

  it("stops accepting a revoked token", async () => {
    const { token: doomed, summary } = await gw.auth.createToken("acme", "doomed", false);
    await gw.auth.revokeToken("acme", summary.id);
    expect((await gw.post("/getQueue", { repo, targetBranch: "main" }, doomed)).status).to.equal(401);
  });

  const badRequests: [string, string, unknown, RegExp][] = [
    ["a missing field", "/getQueue", { repo }, /^targetBranch: is required/],
    [
      "a wrong type",
      "/submitPullRequest",
      { repo, targetBranch: "main", pr: { number: true } },
      /^pr\.number: must be an integer from 1 to 2147483647, or the same as a string of decimal digits/,
    ],
    [
      "a non-positive PR number",
      "/cancelPullRequest",
      { repo, targetBranch: "main", pr: { number: 0 } },
      /^pr\.number: must be an integer from 1 to 2147483647/,
    ],
    [
      "both pr.number and pr.branch",
      "/getSubmittedPullRequest",
      { repo, targetBranch: "main", pr: { number: 1, branch: "x" } },
      /^pr: give either pr\.number or pr\.branch, not both/,
    ],
    [
      "neither pr.number nor pr.branch",
      "/getSubmittedPullRequest",
      { repo, targetBranch: "main", pr: {} },
      /^pr: one of pr\.number or pr\.branch is required/,
    ],
    [
      "an unknown priority",
      "/submitPullRequest",
      { repo, targetBranch: "main", pr: { number: 3 }, priority: "asap" },
      /^priority: must be one of urgent, high, medium, low, or an integer from 0 to 255/,
    ],
    [
      "a priority out of range",
      "/submitPullRequest",
      { repo, targetBranch: "main", pr: { number: 3 }, priority: 256 },
      /^priority:/,
    ],
    [
      "impacted targets that are neither a list nor ALL",
      "/setImpactedTargets",
      { repo, targetBranch: "main", pr: { number: 3, sha: "abc123" }, impactedTargets: "SOME" },
      /^impactedTargets: must be a list of target names or the string "ALL"/,
    ],
    [
      "a zero concurrency",
      "/updateQueue",
      { repo, targetBranch: "main", concurrency: 0 },
      /^concurrency: must be an integer from 1 to 1000/,
    ],
    [
      "setting SWITCHING_MODES by hand",
      "/updateQueue",
      { repo, targetBranch: "main", state: "SWITCHING_MODES" },
      /^state: may be set only to RUNNING, PAUSED or DRAINING/,
    ],
    [
      "an empty repository name",
      "/getQueue",
      { repo: { ...repo, name: " " }, targetBranch: "main" },
      /^repo\.name: must not be empty/,
    ],
  ];
  for (const [what, path, body, message] of badRequests) {
    it(`answers 400 naming the field for ${what}`, async () => {
      const response = await gw.post(path, body, token);
      expect(response.status).to.equal(400);
      expect(response.headers.get("content-type")).to.match(/^text\/plain/);
      expect(await response.text()).to.match(message);
    });
  }

  it("answers 400 for malformed JSON", async () => {
    const response = await gw.post("/getQueue", '{"repo": ', token);
    expect(response.status).to.equal(400);
    expect(await response.text()).to.match(/^body: is not valid JSON/);
  });

  it("answers 415 for a body that is not JSON", async () => {
    const response = await gw.post("/getQueue", "repo=x", token, {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(response.status).to.equal(415);
    expect(await response.text()).to.contain("application/json");
  });

  it("refuses a declared body over 20 MiB with 413 before reading it", async () => {
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${gw.url}/getQueue`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": String(21 * 1024 * 1024),
          "x-api-token": token,
        },
      });
      req.on("response", resolve);
      req.on("error", reject);
      req.write("{"); // the rest never comes: the answer must not wait for it
    });
    expect(await checkedRawAnswer(gw, "/getQueue", answer)).to.equal(413);
  });

  it("refuses a chunked body as soon as it passes 20 MiB", async () => {
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${gw.url}/getQueue`, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked", "x-api-token": token },
      });
      req.on("response", resolve);
      req.on("error", (e) =>
        (e as NodeJS.ErrnoException).code === "EPIPE" || (e as NodeJS.ErrnoException).code === "ECONNRESET"
          ? undefined
          : reject(e),
      );
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 22 && req.write(chunk)) sent++;
        if (sent < 22)
          req.once("drain", () => {
            sent++;
            pump();
          });
      };
      pump();
    });
    expect(await checkedRawAnswer(gw, "/getQueue", answer)).to.equal(413);
  });

  it("answers 404 in plain text for an unknown path", async () => {
    const response = await gw.post("/noSuchThing", {}, token);
    expect(response.status).to.equal(404);
    expect(await response.text()).to.contain("openapi.json");
  });

  it("sets a request id on every response, keeping a sane one from the caller", async () => {
    const generated = await gw.post("/getQueue", {}, token);
    expect(generated.headers.get("x-request-id")).to.match(/^[0-9a-f-]{36}$/);
    const given = await gw.post("/getQueue", {}, token, { "x-request-id": "ci-run-42" });
    expect(given.headers.get("x-request-id")).to.equal("ci-run-42");
  });

  it("serves an OpenAPI 3.1 document listing every merge-queue endpoint", async () => {
    const response = await gw.fetch(`${gw.url}/openapi.json`);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).to.equal("3.1.0");
    for (const path of [
      "/submitPullRequest",
      "/cancelPullRequest",
      "/restartTestsOnPullRequest",
      "/getSubmittedPullRequest",
      "/setImpactedTargets",
      "/getMergeQueueTestingDetails",
      "/createQueue",
      "/deleteQueue",
      "/getQueue",
      "/updateQueue",
    ]) {
      expect(doc.paths[path], path).to.have.property("post");
    }
    expect(doc.paths["/getMergeQueueMetrics"]).to.have.property("get");
  });

  it("answers 503 rather than 500 when the service behind it is unreachable", async () => {
    const response = await gw.post("/getQueue", { repo, targetBranch: "main" }, token);
    expect(response.status).to.equal(503);
  });
});
