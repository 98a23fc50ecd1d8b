import { expect } from "chai";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const queue = { repo, targetBranch: "main" };
const MiB = 1024 * 1024;

/**
 * Every identifier and number the API takes has a bound, and git names follow git's rules: a request that
 * breaks one is a 400 naming the field and the rule, decided by the gateway alone (no upstream runs here).
 */
describe("gateway: bounds of identifiers, numbers and git names", () => {
  let gw: GatewayHarness;
  let token: string;

  before(async () => {
    gw = await GatewayHarness.start();
    token = await gw.organization("acme");
  });
  after(() => gw.stop());

  const refused = async (path: string, body: unknown, message: RegExp) => {
    const response = await gw.post(path, body, token);
    const text = await response.text();
    expect(response.status, `${path} ${text.slice(0, 200)}`).to.equal(400);
    expect(text).to.match(message);
    return text;
  };

  it("refuses a 5 MiB repo.host at once, without quoting it back", async () => {
    const started = performance.now();
    const text = await refused(
      "/getQueue",
      { repo: { ...repo, host: "h".repeat(5 * MiB) }, targetBranch: "main" },
      /^repo\.host: must be at most 259 characters$/,
    );
    // "At once": no hang and no slow pass over the 5 MiB (alone it answers in well under a second); the bound
    // leaves room for a loaded machine, where 2 s was once just missed.
    expect(performance.now() - started).to.be.below(10_000);
    expect(text.length).to.be.below(200);
  });

  it("refuses a 3,500-character repository name and a 5 MiB webhook subscription id", async () => {
    await refused(
      "/getQueue",
      { repo: { ...repo, name: "n".repeat(3500) }, targetBranch: "main" },
      /^repo\.name: must be at most 255 characters/,
    );
    await refused(
      "/getQueue",
      { repo: { ...repo, owner: "o".repeat(256) }, targetBranch: "main" },
      /^repo\.owner: must be at most 255 characters/,
    );
    await refused(
      "/webhooks/subscriptions/test",
      { id: "w".repeat(5 * MiB) },
      /^id: must be at most 128 characters/,
    );
    await refused(
      "/getMergeQueueTestingDetails",
      { ...queue, testRunId: "r".repeat(129) },
      /^testRunId: must be at most 128 characters/,
    );
  });

  it("names the field and its range for integers the contracts cannot carry", async () => {
    await refused(
      "/submitPullRequest",
      { ...queue, pr: { number: 4294967296 } },
      /^pr\.number: must be an integer from 1 to 2147483647/,
    );
    await refused(
      "/updateQueue",
      { ...queue, pendingFailureDepth: 2 ** 53 },
      /^pendingFailureDepth: must be an integer from 0 to 1000; 0 disables$/,
    );
    await refused(
      "/updateQueue",
      { ...queue, concurrency: 1001 },
      /^concurrency: must be an integer from 1 to 1000$/,
    );
    await refused(
      "/updateQueue",
      { ...queue, testingTimeoutMinutes: -1 },
      /^testingTimeoutMinutes: must be an integer from 0 to 10080/,
    );
  });

  it("takes a PR number written as decimal digits, and nothing else written as a string", async () => {
    for (const number of ["6.5", "0x6", " 6", "", "-6", "1e3", "4294967296"]) {
      await refused(
        "/submitPullRequest",
        { ...queue, pr: { number } },
        /^pr\.number: must be an integer from 1 to 2147483647, or the same as a string of decimal digits$/,
      );
    }
    await refused("/submitPullRequest", { ...queue, pr: {} }, /^pr\.number: is required/);
    // "6" passes validation: the call reaches the (absent) queue service.
    const accepted = await gw.post("/submitPullRequest", { ...queue, pr: { number: "6" } }, token);
    expect(accepted.status).to.equal(503);
  });

  it("refuses target and head branches git would refuse, with the rule they break", async () => {
    const cases: [string, RegExp][] = [
      ["main;rm -rf x", /must not contain spaces, control characters or any of/],
      ["../../etc", /must not contain "\.\."/],
      ["-c core.sshCommand=touch /tmp/x", /must not begin with "-"/],
      ["a\nb", /must not contain spaces, control characters/],
      ["refs/heads/x.lock", /must not have a part that ends with "\.lock"/],
      ["b".repeat(256), /must be at most 255 bytes/],
    ];
    for (const [branch, rule] of cases) {
      await refused(
        "/createQueue",
        { repo, targetBranch: branch },
        new RegExp(`^targetBranch: ${rule.source}`),
      );
      await refused(
        "/getSubmittedPullRequest",
        { ...queue, pr: { branch } },
        new RegExp(`^pr\\.branch: ${rule.source}`),
      );
    }
  });

  it("refuses remote URLs and pull-ref patterns git would run as commands or options", async () => {
    const connection = {
      repo,
      remoteUrl: "https://github.com/acme/widgets.git",
      runner: { kind: "EXTERNAL" },
    };
    for (const [remoteUrl, rule] of [
      ["ext::sh -c touch% /tmp/pwned", /^remoteUrl: must not contain spaces/],
      ["ext::sh", /^remoteUrl: .*helper transports/],
      [
        "https://github.com/acme/widgets.git\n[core]",
        /^remoteUrl: must not contain spaces or control characters/,
      ],
      ["--upload-pack=touch", /^remoteUrl: must not begin with "-"/],
      ["ftp://example.com/x.git", /^remoteUrl: must be an https, http, ssh, git, file URL/],
    ] as const) {
      await refused("/repositories/connection", { ...connection, remoteUrl }, rule);
    }
    for (const [pullRefPattern, rule] of [
      ["--upload-pack=x {number}", /^pullRefPattern: must be a ref under "refs\/"/],
      ["refs/pull/{number}/head --force", /^pullRefPattern: must not contain spaces/],
      ["refs/pull/{number}/../../x", /^pullRefPattern: must not contain "\.\."/],
    ] as const) {
      await refused("/repositories/connection", { ...connection, pullRefPattern }, rule);
    }
  });

  it("documents the bounds in the OpenAPI document", async () => {
    const doc = (await (await gw.get("/openapi.json")).json()) as {
      paths: Record<string, { post?: { requestBody?: { content: Record<string, { schema: unknown }> } } }>;
    };
    const schema = JSON.stringify(
      doc.paths["/getQueue"]?.post?.requestBody?.content["application/json"]?.schema,
    );
    expect(schema).to.contain('"host":{"type":"string","minLength":1,"maxLength":259');
    expect(schema).to.contain('"maxLength":255');
    const update = JSON.stringify(
      doc.paths["/updateQueue"]?.post?.requestBody?.content["application/json"]?.schema,
    );
    expect(update).to.match(/"pendingFailureDepth":\{"type":"integer","minimum":0,"maximum":1000/);
    expect(schema).to.match(/"targetBranch":\{"type":"string","maxLength":255/);
  });
});
