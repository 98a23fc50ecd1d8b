import { expect } from "chai";
import { rejection } from "@mainline/testing";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { runCommand } from "../../src/runner/command-runner.js";
import { TestRunCancelledError } from "../../src/runner/test-run-cancelled-error.js";

/** True once a process no longer runs; a zombie waiting for an absent reaper counts as gone. */
async function isGone(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

/** A SIGKILL is delivered asynchronously, so the process may take a moment to die after it. */
async function diesSoon(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await isGone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

describe("runCommand", () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "mainline-runner-"));
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("passes when the command exits 0, in the given directory", async () => {
    await writeFile(join(dir, "marker.txt"), "here\n");
    const started = Date.now();
    const command = "cat marker.txt && sleep 0.3 && echo done";
    const result = await runCommand({ command, cwd: dir, timeoutMs: 10_000 });
    const elapsed = Date.now() - started;
    expect(result.outcome).to.equal("PASSED");
    expect(result.exitCode).to.equal(0);
    expect(result.outputTail).to.equal("here\ndone\n");
    // The command's own time: at least its sleep, at most the wait for it (give or take the clocks' rounding:
    // the runner measures with its own clock reads, 1 ms apart from ours at worst on each end).
    expect(result.durationMs).to.be.within(300, elapsed + 2);
  });

  it("fails with the command's exit code and keeps stderr in the output", async () => {
    const result = await runCommand({
      command: "echo 'assertion failed' >&2; exit 3",
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(result).to.include({ outcome: "FAILED", exitCode: 3 });
    expect(result.outputTail).to.contain("assertion failed");
  });

  it("times out and kills the whole process group, not just the shell", async () => {
    const result = await runCommand({
      command: "sleep 30 & echo $! > sleeper.pid; wait",
      cwd: dir,
      timeoutMs: 300,
      killGraceMs: 200,
    });
    expect(result).to.include({ outcome: "TIMED_OUT", exitCode: null });
    expect(result.durationMs).to.be.below(10_000);
    const sleeper = Number((await readFile(join(dir, "sleeper.pid"), "utf8")).trim());
    expect(await diesSoon(sleeper), `sleep ${sleeper} still running`).to.be.true;
  });

  it("stops at once when the run is cancelled: the whole group is killed and no verdict is given", async () => {
    const cancel = new AbortController();
    const running = runCommand({
      command: "sleep 600 & echo $! > worker.pid; wait",
      cwd: dir,
      timeoutMs: 600_000,
      signal: cancel.signal,
    });
    let workerPid = "";
    while (workerPid === "")
      workerPid = (await readFile(join(dir, "worker.pid"), "utf8").catch(() => "")).trim();
    const cancelledAt = Date.now();
    cancel.abort();

    expect(await rejection(running)).to.be.instanceOf(TestRunCancelledError);
    expect(Date.now() - cancelledAt, "ms until the command is gone").to.be.below(3_000);
    expect(await diesSoon(Number(workerPid))).to.equal(true);
    // A run cancelled before it began never starts its command.
    expect(
      await rejection(runCommand({ command: "true", cwd: dir, timeoutMs: 1_000, signal: cancel.signal })),
    ).to.be.instanceOf(TestRunCancelledError);
  });

  it("escalates to SIGKILL for a command that ignores SIGTERM", async () => {
    const result = await runCommand({
      command: "trap '' TERM; sleep 30 & wait; sleep 30",
      cwd: dir,
      timeoutMs: 200,
      killGraceMs: 200,
    });
    expect(result.outcome).to.equal("TIMED_OUT");
  });

  it("kills background processes a passing command left behind", async () => {
    const result = await runCommand({
      command: "sleep 30 > /dev/null 2>&1 & echo $! > bg.pid",
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(result.outcome).to.equal("PASSED");
    const pid = Number((await readFile(join(dir, "bg.pid"), "utf8")).trim());
    expect(await diesSoon(pid), `sleep ${pid} still running`).to.be.true;
  });

  it("collects the JUnit files matched by the globs, as strings with relative paths", async () => {
    const command = [
      "mkdir -p reports/unit reports/e2e build",
      "echo '<testsuite name=\"unit\"/>' > reports/unit/junit.xml",
      "echo '<testsuite name=\"e2e\"/>' > reports/e2e/results.xml",
      "echo 'not junit' > build/log.txt",
    ].join(" && ");
    const result = await runCommand({
      command,
      cwd: dir,
      timeoutMs: 10_000,
      junitGlobs: ["reports/**/*.xml"],
    });
    expect(result.junitFiles).to.deep.equal([
      { path: "reports/e2e/results.xml", content: '<testsuite name="e2e"/>\n' },
      { path: "reports/unit/junit.xml", content: '<testsuite name="unit"/>\n' },
    ]);
  });

  it("collects JUnit files from a failed run too, and none when nothing matches", async () => {
    const failed = await runCommand({
      command: "echo '<testsuite/>' > junit.xml; exit 1",
      cwd: dir,
      timeoutMs: 10_000,
      junitGlobs: ["*.xml"],
    });
    expect(failed.outcome).to.equal("FAILED");
    expect(failed.junitFiles.map((f) => f.path)).to.deep.equal(["junit.xml"]);

    const none = await runCommand({
      command: "true",
      cwd: dir,
      timeoutMs: 10_000,
      junitGlobs: ["out/**/*.xml"],
    });
    expect(none.junitFiles).to.deep.equal([]);
  });

  it("does not read files outside the worktree through a symlink", async () => {
    const outside = await mkdtemp(join(tmpdir(), "mainline-outside-"));
    try {
      await writeFile(join(outside, "secret.xml"), "<secret/>");
      await mkdir(join(dir, "reports"));
      const result = await runCommand({
        command: `ln -s ${outside}/secret.xml reports/secret.xml`,
        cwd: dir,
        timeoutMs: 10_000,
        junitGlobs: ["reports/*.xml"],
      });
      expect(result.junitFiles).to.deep.equal([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("keeps only the tail of a long output", async () => {
    const result = await runCommand({
      command: "seq 1 100000",
      cwd: dir,
      timeoutMs: 10_000,
      outputTailBytes: 64,
    });
    expect(Buffer.byteLength(result.outputTail)).to.be.at.most(64);
    expect(result.outputTail.endsWith("99999\n100000\n")).to.be.true;
  });

  it("rejects an empty command, a bad timeout, a missing directory and escaping globs", async () => {
    const cases: Array<[Parameters<typeof runCommand>[0], string]> = [
      [{ command: "  ", cwd: dir, timeoutMs: 1000 }, "command"],
      [{ command: "true", cwd: dir, timeoutMs: 0 }, "timeoutMs"],
      [{ command: "true", cwd: join(dir, "missing"), timeoutMs: 1000 }, "cwd"],
      [{ command: "true", cwd: dir, timeoutMs: 1000, junitGlobs: ["../**/*.xml"] }, "junitGlobs"],
      [{ command: "true", cwd: dir, timeoutMs: 1000, junitGlobs: ["/etc/*.xml"] }, "junitGlobs"],
    ];
    for (const [run, field] of cases) {
      const error = await rejection(runCommand(run));
      expect(error, field).to.be.instanceOf(InvalidArgumentError);
      expect((error as InvalidArgumentError).field).to.equal(field);
    }
  });
});
