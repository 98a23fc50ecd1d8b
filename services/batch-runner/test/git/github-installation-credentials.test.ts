import { expect } from "chai";
import { join } from "node:path";
import { GitHubDouble, makeTestAppCredentials, rejection } from "@mainline/testing";
import { FailedPreconditionError } from "@mainline/kit/errors/index";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { createLogger } from "@mainline/kit/logging/index";
import { GitCredentials, GITHUB_TOKEN_VARIABLE } from "../../src/git/git-credentials.js";
import { fastForwardTarget } from "../../src/git/merge.js";
import { buildProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { commandEnvironment } from "../../src/runner/command-environment.js";
import { HttpGitServer } from "./http-remote.js";
import { RemoteFixture } from "./remote-fixture.js";

const INSTALLATION = 77;

/**
 * A repository of a GitHub App installation: git authenticates with the installation's token (minted by the
 * App's JWT from the GitHub double) as `x-access-token`, against a real git server that refuses anyone else.
 */
describe("GitHub App installation tokens as git credentials", function () {
  this.timeout(30_000);
  const app = makeTestAppCredentials(9001);
  let fx: RemoteFixture;
  let server: HttpGitServer;
  let double: GitHubDouble;
  let github: GitHubAppClient;
  /** The git server's accounts: the token is known once the App has minted it. */
  const accounts: Record<string, string> = {};

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    server = await HttpGitServer.start(fx.root, accounts);
    double = await GitHubDouble.start({
      app,
      installations: [{ id: INSTALLATION, account: "acme", repositories: ["acme/app"] }],
    });
    github = new GitHubAppClient({
      settings: {
        appId: app.appId,
        privateKey: app.privateKey,
        webhookSecret: undefined,
        apiUrl: double.url,
      },
      logger: createLogger("test", "silent"),
    });
    accounts["x-access-token"] = (await github.installationToken(INSTALLATION)).token;
  });

  afterEach(async () => {
    await server.stop();
    await double.stop();
    await fx.dispose();
  });

  it("builds, pushes and merges with the installation's token, minted once and reused", async () => {
    const cache = new RepositoryCache({
      workDir: join(fx.root, "work"),
      credentials: new GitCredentials(undefined, github),
    });
    const projected = await buildProjectedBranch(cache, {
      remoteUrl: server.url("remote.git"),
      githubInstallationId: INSTALLATION,
      targetBranch: "main",
      testRunId: "run-1",
      mergeMethod: "MERGE_COMMIT",
      pullRequests: [{ number: 1, title: "One" }],
    });
    expect(await fx.remoteSha(`refs/heads/${projected.testBranch}`)).to.equal(projected.testBranchSha);
    const merged = await fastForwardTarget(cache, {
      remoteUrl: server.url("remote.git"),
      githubInstallationId: INSTALLATION,
      targetBranch: "main",
      mergeId: "merge-1",
      commitSha: projected.testBranchSha,
      testBranch: projected.testBranch,
    });
    expect(await fx.remoteSha("refs/heads/main")).to.equal(merged.mergedSha);
    expect(new Set(server.authenticatedAs)).to.deep.equal(new Set(["x-access-token"]));
    // The token is cached until shortly before it expires: one mint for every git operation above.
    expect(double.calls("POST /app/installations/{installation_id}/access_tokens")).to.have.length(1);
    double.assertNoViolations();
  });

  it("keeps the token out of git's config values (and so its command lines) and out of a test command's environment", async () => {
    const token = accounts["x-access-token"]!;
    const env = await new GitCredentials(undefined, github).environment("", INSTALLATION);
    expect(env[GITHUB_TOKEN_VARIABLE]).to.equal(token);
    const config = Object.entries(env)
      .filter(([name]) => name !== GITHUB_TOKEN_VARIABLE)
      .map(([, value]) => value)
      .join("\n");
    expect(config).to.not.include(token);
    // Even were it in the runner's own environment, a test command is built from an allow-list.
    const commandEnv = commandEnvironment({ home: "/tmp/h", tmp: "/tmp/t" }, {}, { ...process.env, ...env });
    expect(Object.values(commandEnv).join("\n")).to.not.include(token);
  });

  it("says what is missing when the batch-runner has no GitHub App", async () => {
    const cache = new RepositoryCache({
      workDir: join(fx.root, "no-app"),
      credentials: new GitCredentials(undefined),
    });
    const error = await rejection(
      buildProjectedBranch(cache, {
        remoteUrl: server.url("remote.git"),
        githubInstallationId: INSTALLATION,
        targetBranch: "main",
        testRunId: "run-2",
        mergeMethod: "SQUASH",
        pullRequests: [{ number: 1, title: "One" }],
      }),
    );
    expect(error).to.be.instanceOf(FailedPreconditionError);
    expect((error as Error).message).to.match(/has no GitHub App \(set GITHUB_APP_ID/);
  });
});
