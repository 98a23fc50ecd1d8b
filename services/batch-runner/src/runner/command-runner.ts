import { spawn } from "node:child_process";
import { lstat, readFile, stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { performance } from "node:perf_hooks";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { glob } from "tinyglobby";
import { commandEnvironment, createRunArea, type RunArea } from "./command-environment.js";
import { OutputTail } from "./output-tail.js";
import { TestRunCancelledError } from "./test-run-cancelled-error.js";
import type { JunitFile, RunOutcome } from "./run-result.js";

export interface CommandRun {
  /** The repository's configured command, run with `sh -c`: the user wrote it, it is meant for a shell. */
  readonly command: string;
  /** The worktree of the test commit. */
  readonly cwd: string;
  /** The queue's testing timeout; when it passes, the whole process group is killed. */
  readonly timeoutMs: number;
  /** Globs relative to `cwd` of the JUnit XML files to collect after the command ends. */
  readonly junitGlobs?: readonly string[];
  /** The run's own variables; the command sees these and an allow-list, never the runner's environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly outputTailBytes?: number;
  /** JUnit files beyond this total size are left out rather than held in memory. */
  readonly maxJunitBytes?: number;
  /** Time between SIGTERM and SIGKILL for a command that timed out or was cancelled. */
  readonly killGraceMs?: number;
  /**
   * Fires when the run is cancelled: the process group is killed as on a timeout, and runCommand
   * rejects with TestRunCancelledError once the command has exited.
   */
  readonly signal?: AbortSignal;
}

export interface CommandRunResult {
  readonly outcome: RunOutcome;
  /** null when the command was killed by a signal (always the case after a timeout). */
  readonly exitCode: number | null;
  readonly durationMs: number;
  readonly junitFiles: JunitFile[];
  /** The end of stdout and stderr, interleaved as they arrived. */
  readonly outputTail: string;
}

const DEFAULT_TAIL_BYTES = 64 * 1024;
const DEFAULT_MAX_JUNIT_BYTES = 32 * 1024 * 1024;
const DEFAULT_KILL_GRACE_MS = 2_000;

/** Runs a test command and collects its verdict, output tail and JUnit reports. */
export async function runCommand(run: CommandRun): Promise<CommandRunResult> {
  if (run.command.trim().length === 0) throw new InvalidArgumentError("command", "must not be empty");
  if (!Number.isFinite(run.timeoutMs) || run.timeoutMs <= 0)
    throw new InvalidArgumentError("timeoutMs", "must be a positive number");
  if (!(await isDirectory(run.cwd))) throw new InvalidArgumentError("cwd", "must be an existing directory");
  for (const pattern of run.junitGlobs ?? []) {
    // Reports come from the worktree; a glob must not read the runner's own files.
    if (isAbsolute(pattern) || pattern.split("/").includes("..")) {
      throw new InvalidArgumentError("junitGlobs", "must be relative to the worktree, without '..'");
    }
  }

  if (run.signal?.aborted) throw new TestRunCancelledError();

  const started = performance.now();
  const tail = new OutputTail(run.outputTailBytes ?? DEFAULT_TAIL_BYTES);
  const area = await createRunArea();
  const { exitCode, timedOut, cancelled } = await runInProcessGroup(run, tail, area).finally(() =>
    area.remove(),
  );
  if (cancelled) throw new TestRunCancelledError();
  const durationMs = Math.round(performance.now() - started);
  const junitFiles = await collectJunitFiles(
    run.cwd,
    run.junitGlobs ?? [],
    run.maxJunitBytes ?? DEFAULT_MAX_JUNIT_BYTES,
  );
  const outcome: RunOutcome = timedOut ? "TIMED_OUT" : exitCode === 0 ? "PASSED" : "FAILED";
  return {
    outcome,
    exitCode: timedOut ? null : exitCode,
    durationMs,
    junitFiles,
    outputTail: tail.toString(),
  };
}

/**
 * Runs the command (`$1`) beside a guard that reads fd 3, a pipe only this process holds the other end of. When
 * the batch-runner dies, however it dies (SIGKILL included), the pipe reaches end of file and the guard kills the
 * whole group: the job goes to another replica after the ack wait, and its run there never runs beside an orphaned
 * first attempt (DESIGN rule 5, the queue's concurrency). The command itself does not inherit fd 3.
 */
const GUARDED_COMMAND =
  '( cat <&3 >/dev/null 2>&1; kill -9 0 ) </dev/null >/dev/null 2>&1 & exec 3<&-; exec sh -c "$1"';

function runInProcessGroup(
  run: CommandRun,
  tail: OutputTail,
  area: RunArea,
): Promise<{ exitCode: number | null; timedOut: boolean; cancelled: boolean }> {
  return new Promise((resolve, reject) => {
    // detached puts sh at the head of a new process group, so kill(-pid) reaches everything the
    // command started (test workers, servers), not just the shell. fd 3 is the group's lifeline.
    const child = spawn("sh", ["-c", GUARDED_COMMAND, "mainline-test-command", run.command], {
      cwd: run.cwd,
      env: commandEnvironment(area, run.env),
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "pipe"],
    });
    let timedOut = false;
    let cancelled = false;
    let escalation: NodeJS.Timeout | undefined;
    const killGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const stopGroup = (): void => {
      if (escalation !== undefined) return;
      killGroup("SIGTERM");
      escalation = setTimeout(() => killGroup("SIGKILL"), run.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, run.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      stopGroup();
    };
    run.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout?.on("data", (chunk: Buffer) => tail.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => tail.push(chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      run.signal?.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.on("exit", () => {
      // Background processes the command left behind would hold the output pipes open (and the
      // worktree busy) forever; the run is over, so its whole group goes.
      killGroup("SIGKILL");
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      clearTimeout(escalation);
      run.signal?.removeEventListener("abort", onAbort);
      resolve({ exitCode: code, timedOut: timedOut && !cancelled, cancelled });
    });
  });
}

async function collectJunitFiles(
  cwd: string,
  globs: readonly string[],
  maxBytes: number,
): Promise<JunitFile[]> {
  if (globs.length === 0) return [];
  const paths = (
    await glob([...globs], { cwd, onlyFiles: true, dot: true, followSymbolicLinks: false })
  ).sort();
  const files: JunitFile[] = [];
  let total = 0;
  for (const path of paths) {
    const entry = await lstat(join(cwd, path));
    // A symlink could point anywhere on the runner; only real files in the worktree are read.
    if (!entry.isFile() || total + entry.size > maxBytes) continue;
    total += entry.size;
    files.push({ path, content: await readFile(join(cwd, path), "utf8") });
  }
  return files;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
