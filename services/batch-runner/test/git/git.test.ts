import { expect } from "chai";
import { rejection } from "@mainline/testing";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UnavailableError } from "@mainline/kit/errors/index";
import { Git } from "../../src/git/git.js";
import { GitCommandError } from "../../src/git/git-errors.js";
import { buildProjectedBranch } from "../../src/git/projected-branch.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";
import { RemoteFixture } from "./remote-fixture.js";

describe("Git", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mainline-gitcmd-"));
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("raises GitCommandError carrying the args, exit code and stderr", async () => {
    const git = new Git(dir);
    const error = await rejection(git.run(["rev-parse", "--verify", "no-such-ref"]));
    expect(error).to.be.instanceOf(GitCommandError);
    const failure = error as GitCommandError;
    expect(failure.args).to.deep.equal(["rev-parse", "--verify", "no-such-ref"]);
    expect(failure.exitCode).to.equal(128);
    expect(failure.stderr).to.contain("not a git repository");
    expect(failure.retryable).to.be.false;
  });

  it("commits as the configured identity in its own directory, whatever GIT_* variables say", async () => {
    const saved = { ...process.env };
    const elsewhere = await mkdtemp(join(tmpdir(), "mainline-elsewhere-"));
    // What a git hook or a developer's shell might leave in the service's environment.
    Object.assign(process.env, {
      GIT_AUTHOR_NAME: "Intruder",
      GIT_COMMITTER_EMAIL: "x@y",
      GIT_DIR: elsewhere,
    });
    try {
      const git = new Git(dir, { identity: { name: "Queue Bot", email: "bot@corp.example" } });
      await git.run(["init", "--quiet"]);
      await git.run(["commit", "--quiet", "--allow-empty", "-m", "x"]);
      expect(await git.text(["log", "-1", "--format=%an <%ae>|%cn <%ce>"])).to.equal(
        "Queue Bot <bot@corp.example>|Queue Bot <bot@corp.example>",
      );
      expect(await readdir(elsewhere)).to.deep.equal([]);
    } finally {
      process.env = saved;
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it("defaults to the Mainline identity", async () => {
    const git = new Git(dir);
    await git.run(["init", "--quiet"]);
    await git.run(["commit", "--quiet", "--allow-empty", "-m", "x"]);
    expect(await git.text(["log", "-1", "--format=%an <%ae>"])).to.equal("Mainline <mainline@localhost>");
  });

  it("treats an unreachable remote as unavailable (retryable)", async () => {
    const git = new Git(dir);
    await git.run(["init", "--quiet", "--bare"]);
    const error = await rejection(git.run(["ls-remote", "http://127.0.0.1:1/repo.git"]));
    expect(error).to.be.instanceOf(UnavailableError);
    expect((error as UnavailableError).retryable).to.be.true;
  });
});

describe("RepositoryCache", () => {
  let fx: RemoteFixture;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
  });

  afterEach(() => fx.dispose());

  it("keeps one mirror per remote and reuses it across jobs", async () => {
    for (const testRunId of ["run-a", "run-b"]) {
      await buildProjectedBranch(fx.cache, {
        remoteUrl: fx.url,
        targetBranch: "main",
        testRunId,
        mergeMethod: "SQUASH",
        pullRequests: [{ number: 1, title: "One" }],
      });
    }
    const mirrors = (await readdir(join(fx.root, "work", "mirrors"))).filter((name) => !name.startsWith("."));
    expect(mirrors).to.have.length(1);
    expect(mirrors[0]).to.match(/-remote-[0-9a-f]{16}\.git$/);
  });

  it("fails a job on a remote that is not a repository with a terminal GitCommandError", async () => {
    const cache = new RepositoryCache({ workDir: join(fx.root, "work2") });
    const error = await rejection(
      buildProjectedBranch(cache, {
        remoteUrl: join(fx.root, "does-not-exist.git"),
        targetBranch: "main",
        testRunId: "run-x",
        mergeMethod: "SQUASH",
        pullRequests: [{ number: 1, title: "One" }],
      }),
    );
    expect(error).to.be.instanceOf(GitCommandError);
    expect((error as GitCommandError).retryable).to.be.false;
  });
});
