import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { example, githubRequest, through } from "../integration/github/github-deliveries.js";
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
