import { expect } from "chai";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../src/runner/command-runner.js";

/** The `NAME=value` lines a command printed with `env`, as a map. */
function parseEnv(output: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of output.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) vars.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return vars;
}

describe("the environment of a test command", () => {
  // What the batch-runner holds in its own environment under make dev, compose or the chart.
  const secrets: Record<string, string> = {
    NATS_URL: "nats://127.0.0.1:4222",
    NATS_USER: "batch-runner",
    NATS_PASSWORD: "bus-secret-1234",
    MONGODB_URI: "mongodb://admin:db-secret@mongo:27017",
    DEV_API_TOKEN: "mlt_admin-token-5678",
    QUEUE_COORDINATOR_ADDR: "127.0.0.1:50051",
    BATCH_RUNNER_CREDENTIALS_DIR: "/var/run/mainline/credentials",
    GIT_ASKPASS: "/usr/local/bin/credential-helper",
  };
  let dir: string;
  const saved: Record<string, string | undefined> = {};

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mainline-runner-env-"));
    for (const [name, value] of Object.entries(secrets)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });

  afterEach(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await rm(dir, { recursive: true, force: true });
  });

  it("holds no variable of the runner beyond the allow-list, so no credential or service address", async () => {
    const result = await runCommand({ command: "env", cwd: dir, timeoutMs: 10_000 });
    expect(result.outcome).to.equal("PASSED");
    const vars = parseEnv(result.outputTail);
    for (const [name, value] of Object.entries(secrets)) {
      expect(vars.has(name), name).to.equal(false);
      expect(result.outputTail, name).not.to.contain(value);
    }
    // The shell adds PWD, SHLVL and `_` by itself; nothing else comes from the runner.
    const allowed = ["PATH", "LANG", "LC_ALL", "TZ", "HOME", "TMPDIR", "CI", "PWD", "SHLVL", "_", "OLDPWD"];
    expect([...vars.keys()].filter((name) => !allowed.includes(name))).to.deep.equal([]);
    expect(vars.get("CI")).to.equal("true");
    expect(vars.get("PATH")).to.equal(process.env.PATH);
  });

  it("gives the command a HOME and TMPDIR of its own, writable, not the runner's, and gone after the run", async () => {
    const result = await runCommand({
      command:
        'echo "HOME=$HOME"; echo "TMPDIR=$TMPDIR"; touch "$HOME/.npmrc" "$TMPDIR/scratch" && echo wrote',
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(result.outcome, result.outputTail).to.equal("PASSED");
    const vars = parseEnv(result.outputTail);
    const home = vars.get("HOME")!;
    expect(home).not.to.equal(homedir());
    expect(home.startsWith(dir)).to.equal(false);
    expect(vars.get("TMPDIR")).not.to.equal(undefined);
    expect(result.outputTail).to.contain("wrote");
    expect(
      await stat(home)
        .then(() => "exists")
        .catch(() => "gone"),
    ).to.equal("gone");
  });

  it("passes the run's own variables, which cannot replace PATH, HOME or CI", async () => {
    const result = await runCommand({
      command: "env",
      cwd: dir,
      timeoutMs: 10_000,
      env: { MAINLINE_TEST_RUN_ID: "run-1", PATH: "/evil", HOME: "/root", CI: "false" },
    });
    const vars = parseEnv(result.outputTail);
    expect(vars.get("MAINLINE_TEST_RUN_ID")).to.equal("run-1");
    expect(vars.get("PATH")).to.equal(process.env.PATH);
    expect(vars.get("HOME")).not.to.equal("/root");
    expect(vars.get("CI")).to.equal("true");
  });
});
