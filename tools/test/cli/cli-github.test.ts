import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, GitHubDouble, makeTestAppCredentials, serverError } from "@mainline/testing";
import {
  example,
  githubRequest,
  pullRequestComment,
  through,
} from "../integration/github/github-deliveries.js";
import { MainlineFixture } from "./mainline-fixture.js";

const SECRET = "cli test webhook secret, long enough";

/** `mainline github connect|status|disconnect` against the real services, the App's webhook on. */
describe("mainline github: connect an installation and see what Mainline sees", function () {
  this.timeout(60_000);
  let dir: string;
  let system: MainlineFixture;
  let plain: MainlineFixture;
  const mainline = (argv: string[], token = system.adminToken, on = system) =>
    on.run(argv, { env: on.env({ MAINLINE_TOKEN: token }) });

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-github-"));
    system = await MainlineFixture.start(path.join(dir, "on"), { github: { webhookSecret: SECRET } });
    plain = await MainlineFixture.start(path.join(dir, "off"));
  });
  after(async () => {
    await system?.stop();
    await plain?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("says when the GitHub App is not configured", async () => {
    const status = await mainline(["github", "status"], plain.token, plain);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/GitHub App is not configured/);
    const connect = await mainline(["github", "connect", "12"], plain.adminToken, plain);
    expect(connect.code).to.equal(1);
    expect(connect.stderr).to.match(/answered 404: the GitHub App is not configured/);
  });

  it("connects an installation to an organisation with an admin token, and refuses an ordinary one", async () => {
    const refused = await mainline(["github", "connect", "957387", "--org", "acme"], system.token);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/answered 403/);
    const connected = await mainline([
      "github",
      "connect",
      "957387",
      "--org",
      "acme",
      "--account",
      "Codertocat",
    ]);
    expect(connected.code, connected.stderr).to.equal(0);
    expect(connected.stdout).to.equal(
      "Connected GitHub installation 957387 (Codertocat on github.com) to organisation acme: active, " +
        "repositories not yet listed by GitHub.\n",
    );
  });

  it("refuses an installation id that is not a positive integer before sending anything", async () => {
    for (const bad of ["0", "-4", "12a", "1e3"]) {
      const run = await mainline(["github", "connect", bad]);
      expect(run.code, bad).to.equal(2);
      expect(run.stderr).to.match(/installation id must be a positive integer/);
    }
  });

  it("shows the organisation's installations and the deliveries GitHub made", async () => {
    const payload = through(example("installation_repositories", "added"), 957387);
    const request = await githubRequest({ event: "installation_repositories", payload }, SECRET);
    const response = await system.gateway.post("/github/webhooks", request.body, undefined, request.headers);
    expect(response.status, await response.clone().text()).to.equal(200);

    const status = await mainline(["github", "status"], system.token);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.match(/957387\s+Codertocat\s+github\.com\s+active, 1 selected repository/);
    expect(status.stdout).to.match(/installation_repositories\.added\s+-\s+applied/);
    const json = await mainline(["github", "status", "--json"], system.token);
    const parsed = JSON.parse(json.stdout) as { installations: { repositories: string[] }[] };
    expect(parsed.installations[0]?.repositories).to.include("codertocat/space");
  });

  it("disconnects an installation; another organisation may then connect it", async () => {
    const run = await mainline(["github", "disconnect", "957387", "--org", "acme"]);
    expect(run.code, run.stderr).to.equal(0);
    const status = await mainline(["github", "status"], system.token);
    expect(status.stdout).to.contain("No installation is connected to this organisation");
    const again = await mainline(["github", "connect", "957387"]);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.contain("to organisation root");
  });
});

/** `mainline github status` shows the calls Mainline made to GitHub (the webhooks service's outbox). */
describe("mainline github status: the calls to GitHub, sent, pending and given up", function () {
  this.timeout(90_000);
  const INSTALLATION = 957387;
  const ACME = { owner: "Codertocat", name: "Hello-World" };
  const app = makeTestAppCredentials(4343);
  let dir: string;
  let double: GitHubDouble;
  let system: MainlineFixture;
  const mainline = (argv: string[], token = system.token) =>
    system.run(argv, { env: system.env({ MAINLINE_TOKEN: token }) });
  const command = async (number: number) => {
    const p = pullRequestComment(INSTALLATION, ACME, number, "/svc merge");
    const request = await githubRequest({ event: "issue_comment", payload: p }, SECRET);
    const response = await system.gateway.post("/github/webhooks", request.body, undefined, request.headers);
    expect(response.status, await response.clone().text()).to.equal(200);
  };
  const comments = (number: number) =>
    double.calls("issues/create-comment").filter((r) => r.pathParams.issue_number === String(number));

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-github-calls-"));
    double = await GitHubDouble.start({
      app,
      installations: [
        { id: INSTALLATION, account: ACME.owner, repositories: [`${ACME.owner}/${ACME.name}`] },
      ],
    });
    system = await MainlineFixture.start(dir, {
      github: { webhookSecret: SECRET, app: { apiUrl: double.url, credentials: app } },
    });
    const connected = await mainline(
      ["github", "connect", String(INSTALLATION), "--org", "acme", "--account", ACME.owner],
      system.adminToken,
    );
    expect(connected.code, connected.stderr).to.equal(0);
  });
  after(async () => {
    await system?.stop();
    await double?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("says when no call was made yet", async () => {
    const status = await mainline(["github", "status"]);
    expect(status.code, status.stderr).to.equal(0);
    expect(status.stdout).to.contain("No call to GitHub made for this organisation yet.");
  });

  it("lists the organisation's recent calls: sent, given up with GitHub's refusal, pending with the last error", async () => {
    // PR 5's reply is taken; PR 6's is refused for good (422); PR 7's meets an outage that lasts.
    await command(5);
    await eventually(() => expect(comments(5)).to.have.length(1), 30_000);
    double.script("issues/create-comment", { status: 422, body: { message: "Validation Failed" } });
    await command(6);
    await eventually(() => expect(comments(6)).to.have.length(1), 30_000);
    double.script("issues/create-comment", serverError(502), Infinity);
    await command(7);
    await eventually(() => expect(comments(7).length).to.be.greaterThan(0), 30_000);

    let stdout = "";
    await eventually(async () => {
      const status = await mainline(["github", "status"]);
      expect(status.code, status.stderr).to.equal(0);
      stdout = status.stdout;
      expect(stdout).to.match(/comment\s+Codertocat\/Hello-World#7\s+pending\s+\d+\s+.*502/);
    }, 30_000);
    expect(stdout).to.contain("Calls to GitHub (check runs and comments, most recent first):");
    expect(stdout).to.match(/comment\s+Codertocat\/Hello-World#5\s+sent\s+1\s/);
    expect(stdout).to.match(/comment\s+Codertocat\/Hello-World#6\s+given up\s+1\s+.*422/);
    // Most recent first.
    expect(stdout.indexOf("#7")).to.be.lessThan(stdout.indexOf("#6"));
    expect(stdout.indexOf("#6")).to.be.lessThan(stdout.indexOf("#5"));

    const json = await mainline(["github", "status", "--json"]);
    const parsed = JSON.parse(json.stdout) as { recentCalls: { prNumber: number; state: string }[] };
    expect(parsed.recentCalls.map((c) => [c.prNumber, c.state])).to.deep.equal([
      [7, "pending"],
      [6, "gave_up"],
      [5, "sent"],
    ]);
    const one = await mainline(["github", "status", "--json", "--calls", "1"]);
    expect((JSON.parse(one.stdout) as { recentCalls: unknown[] }).recentCalls).to.have.length(1);
    double.clearScripts();
    double.assertNoViolations();
  });

  it("bounds --calls before sending anything, and another organisation sees none of these calls", async () => {
    const bad = await mainline(["github", "status", "--calls", "500"]);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/--calls must be an integer from 0 to 200/);
    const none = await mainline(["github", "status", "--calls", "0"]);
    expect(none.stdout).to.not.contain("Calls to GitHub");
    const other = await system.gateway.organization("globex");
    const response = await system.gateway.get("/github/calls?limit=200", other);
    expect(response.status).to.equal(200);
    expect(await response.json()).to.deep.equal({ calls: [] });
    const tooMany = await system.gateway.get("/github/calls?limit=201", other);
    expect(tooMany.status).to.equal(400);
  });
});
