import { expect } from "chai";
import { rejection } from "@mainline/testing";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FailedPreconditionError, InvalidArgumentError } from "@mainline/kit/errors/index";
import { GitCredentials } from "../../src/git/git-credentials.js";
import { GitCommandError } from "../../src/git/git-errors.js";
import { fastForwardTarget } from "../../src/git/merge.js";
import { buildProjectedBranch, type ProjectedBranchJob } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { HttpGitServer } from "./http-remote.js";
import { RemoteFixture } from "./remote-fixture.js";

/**
 * Issue 5: a repository connection names its credentials by Secret name; the batch-runner finds the Secret
 * mounted as files and git authenticates with it against a real git server that refuses anyone else.
 */
describe("repository credentials (git over HTTP with basic auth)", () => {
  const PASSWORD = "s3cret-pa55word";
  const TOKEN = "ghs_token_value_1234";
  let fx: RemoteFixture;
  let server: HttpGitServer;
  let credentialsDir: string;
  let cache: RepositoryCache;

  const job = (overrides: Partial<ProjectedBranchJob> = {}): ProjectedBranchJob => ({
    remoteUrl: server.url("remote.git"),
    credentialsSecretName: "repo-basic-auth",
    targetBranch: "main",
    testRunId: "run-1",
    mergeMethod: "SQUASH",
    pullRequests: [{ number: 1, title: "One" }],
    ...overrides,
  });

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    server = await HttpGitServer.start(fx.root, { mainline: PASSWORD, "x-access-token": TOKEN });
    credentialsDir = join(fx.root, "credentials");
    // As Kubernetes mounts Secrets: one directory per Secret, one file per key.
    await mkdir(join(credentialsDir, "repo-basic-auth"), { recursive: true });
    await writeFile(join(credentialsDir, "repo-basic-auth", "username"), "mainline\n");
    await writeFile(join(credentialsDir, "repo-basic-auth", "password"), PASSWORD);
    await mkdir(join(credentialsDir, "repo-token"), { recursive: true });
    await writeFile(join(credentialsDir, "repo-token", "token"), `${TOKEN}\n`);
    await mkdir(join(credentialsDir, "wrong-password"), { recursive: true });
    await writeFile(join(credentialsDir, "wrong-password", "username"), "mainline");
    await writeFile(join(credentialsDir, "wrong-password", "password"), "guess");
    cache = new RepositoryCache({
      workDir: join(fx.root, "work-http"),
      credentials: new GitCredentials(credentialsDir),
    });
  });

  afterEach(async () => {
    await server.stop();
    await fx.dispose();
  });

  it("builds, pushes and merges with a username and password Secret", async () => {
    const projected = await buildProjectedBranch(cache, job());
    expect(await fx.remoteSha(`refs/heads/${projected.testBranch}`)).to.equal(projected.testBranchSha);

    const merged = await fastForwardTarget(cache, {
      remoteUrl: server.url("remote.git"),
      credentialsSecretName: "repo-basic-auth",
      targetBranch: "main",
      mergeId: "merge-1",
      commitSha: projected.testBranchSha,
      testBranch: projected.testBranch,
    });
    expect(await fx.remoteSha("refs/heads/main")).to.equal(merged.mergedSha);
    expect(server.authenticatedAs).to.include("mainline");
    expect(new Set(server.authenticatedAs)).to.deep.equal(new Set(["mainline"]));
  });

  it("sends a bare token as x-access-token", async () => {
    const projected = await buildProjectedBranch(cache, job({ credentialsSecretName: "repo-token" }));
    expect(await fx.remoteSha(`refs/heads/${projected.testBranch}`)).to.equal(projected.testBranchSha);
    expect(server.authenticatedAs).to.include("x-access-token");
  });

  it("fails without credentials or with wrong ones, and pushes nothing", async () => {
    for (const secret of ["", "wrong-password"]) {
      const error = await rejection(buildProjectedBranch(cache, job({ credentialsSecretName: secret })));
      expect(error, secret || "no secret").to.be.instanceOf(GitCommandError);
      expect((error as GitCommandError).stderr).to.match(/authentication failed|could not read username/i);
    }
    expect(server.refused).to.be.greaterThan(0);
    expect(await fx.remoteSha("refs/heads/mainline/main/run-1")).to.equal(undefined);
  });

  it("says which Secret is missing and where it was looked for", async () => {
    const error = await rejection(buildProjectedBranch(cache, job({ credentialsSecretName: "not-mounted" })));
    expect(error).to.be.instanceOf(FailedPreconditionError);
    expect((error as Error).message).to.include(join(credentialsDir, "not-mounted"));

    const unset = new RepositoryCache({
      workDir: join(fx.root, "work-unset"),
      credentials: new GitCredentials(undefined),
    });
    const noDir = await rejection(buildProjectedBranch(unset, job()));
    expect((noDir as Error).message).to.include("BATCH_RUNNER_CREDENTIALS_DIR is not set");
  });

  it("refuses a Secret name that is not a Kubernetes name (it could walk out of the directory)", async () => {
    for (const name of ["../etc", "Repo", "a/b", "-x"]) {
      const error = await rejection(buildProjectedBranch(cache, job({ credentialsSecretName: name })));
      expect(error, name).to.be.instanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).message, name).to.include("credentialsSecretName");
    }
  });

  it("never puts the secret itself in git's environment", async () => {
    const credentials = new GitCredentials(credentialsDir);
    for (const secret of ["repo-basic-auth", "repo-token"]) {
      const env = await credentials.environment(secret);
      const values = Object.values(env).join("\n");
      expect(values).to.not.include(PASSWORD);
      expect(values).to.not.include(TOKEN);
    }
  });
});
