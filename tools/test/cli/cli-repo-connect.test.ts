import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, git } from "@mainline/testing";
import { type CliIo, runCli } from "@mainline/cli-src";
import { CapturedSink } from "./mainline-fixture.js";

/** `repo connect` reads the remote with `git ls-remote` first, as the batch-runner will, and refuses a wrong one. */
describe("mainline repo connect: the remote is checked first", () => {
  let dir: string;
  let apiUrl: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-cli-connect-"));
    git(dir, "init", "--quiet", "--bare", "--initial-branch=main", "remote.git");
    // Nobody listens here: a connect that passes the check then fails to reach Mainline (exit 3).
    apiUrl = `http://127.0.0.1:${await freePort()}`;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function connect(...extra: string[]): Promise<{ code: number; stderr: string }> {
    const stderr = new CapturedSink();
    const io: CliIo = {
      stdout: new CapturedSink(),
      stderr,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, MAINLINE_URL: apiUrl, MAINLINE_TOKEN: "mlt_x" },
      cwd: dir,
      childStdio: "pipe",
    };
    const code = await runCli(
      ["repo", "connect", "--repo", "git.example.com/acme/app", "--external", ...extra],
      io,
    );
    return { code, stderr: stderr.text };
  }

  it("refuses a remote that does not exist, saying what git said, and sends nothing", async () => {
    const run = await connect("--remote", path.join(dir, "no-such-remote.git"));
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include(
      `--remote ${path.join(dir, "no-such-remote.git")}: git ls-remote cannot read it`,
    );
    expect(run.stderr).to.include("--no-check connects it anyway");
  });

  it("lets a remote that exists through to the service", async () => {
    const run = await connect("--remote", path.join(dir, "remote.git"));
    expect(run.code, run.stderr).to.equal(3);
    expect(run.stderr).to.include("cannot reach Mainline");
  });

  it("skips the check with --no-check", async () => {
    const run = await connect("--remote", path.join(dir, "no-such-remote.git"), "--no-check");
    expect(run.code, run.stderr).to.equal(3);
  });
});
