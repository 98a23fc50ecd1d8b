import { spawn } from "node:child_process";
import { UnavailableError } from "@mainline/kit/errors/index";
import { GitCommandError } from "./git-errors.js";

export interface GitIdentity {
  readonly name: string;
  readonly email: string;
}

export const DEFAULT_GIT_IDENTITY: GitIdentity = { name: "Mainline", email: "mainline@localhost" };

export interface GitOptions {
  /** Author and committer of every commit Mainline creates (replayed commits keep their author). */
  readonly identity?: GitIdentity;
  /** Per-command limit; a command that exceeds it is killed. */
  readonly timeoutMs?: number;
  /** Extra environment, e.g. GIT_ASKPASS or GIT_SSH_COMMAND resolved from a credentials reference. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface GitRunOptions {
  /** Exit codes that are answers rather than failures (e.g. 1 from `merge-base --is-ancestor`). */
  readonly okExitCodes?: readonly number[];
  readonly timeoutMs?: number;
  /** Written to the command's stdin (e.g. an object for `hash-object --stdin`); none: no stdin. */
  readonly input?: string;
}

export interface GitResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;

// Commands that talk to the remote: their failures may be the network's, not ours.
const REMOTE_COMMANDS = new Set(["fetch", "push", "ls-remote", "clone"]);
const TRANSIENT_REMOTE_FAILURE =
  /could not resolve host|temporary failure in name resolution|connection (refused|reset|timed out)|operation timed out|failed to connect|the remote end hung up unexpectedly|early eof|requested url returned error: 5\d\d|network is unreachable|no route to host/i;

// The user's global and system config must not change what Mainline builds (signing, hooks,
// merge drivers, rerere, autocrlf); these pin the behaviour the code relies on.
const PINNED_CONFIG = [
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "core.autocrlf=false",
  "core.hooksPath=/dev/null",
  "rerere.enabled=false",
  "merge.renames=true",
  "advice.detachedHead=false",
  "gc.auto=0",
];

/** Runs the real `git` CLI in one directory, with argument arrays (never a shell) and a timeout. */
export class Git {
  private readonly identity: GitIdentity;
  private readonly timeoutMs: number;
  private readonly extraEnv: Readonly<Record<string, string>>;

  constructor(
    readonly cwd: string,
    options: GitOptions = {},
  ) {
    this.identity = options.identity ?? DEFAULT_GIT_IDENTITY;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.extraEnv = options.env ?? {};
  }

  /** The same settings in another directory (a worktree of the same repository). */
  at(cwd: string): Git {
    return new Git(cwd, { identity: this.identity, timeoutMs: this.timeoutMs, env: this.extraEnv });
  }

  /** stdout of a command that must succeed, without the trailing newline. */
  async text(args: readonly string[], options?: GitRunOptions): Promise<string> {
    return (await this.run(args, options)).stdout.replace(/\n$/, "");
  }

  async run(args: readonly string[], options: GitRunOptions = {}): Promise<GitResult> {
    const fullArgs = PINNED_CONFIG.flatMap((c) => ["-c", c]).concat(args);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const outcome = await spawnGit(fullArgs, this.cwd, this.environment(), timeoutMs, options.input);
    const isRemote = REMOTE_COMMANDS.has(args[0] ?? "");
    if (outcome.kind === "timed_out") {
      if (isRemote) throw new UnavailableError(`git ${args.join(" ")} timed out after ${timeoutMs} ms`);
      throw new GitCommandError(args, null, outcome.stderr, `timed out after ${timeoutMs} ms`);
    }
    if (outcome.kind === "spawn_failed") {
      throw new GitCommandError(args, null, outcome.error.message, "could not start git");
    }
    const { exitCode, stdout, stderr } = outcome;
    if (exitCode === 0 || options.okExitCodes?.includes(exitCode)) return { stdout, stderr, exitCode };
    if (isRemote && TRANSIENT_REMOTE_FAILURE.test(stderr)) {
      throw new UnavailableError(`git ${args[0]} could not reach the remote: ${stderr.trim()}`);
    }
    throw new GitCommandError(args, exitCode, stderr);
  }

  private environment(): NodeJS.ProcessEnv {
    // Inherited GIT_* variables (GIT_DIR from a hook, GIT_INDEX_FILE...) would redirect every
    // command to someone else's repository.
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!key.startsWith("GIT_")) env[key] = value;
    }
    return {
      ...env,
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_TERMINAL_PROMPT: "0",
      GIT_AUTHOR_NAME: this.identity.name,
      GIT_AUTHOR_EMAIL: this.identity.email,
      GIT_COMMITTER_NAME: this.identity.name,
      GIT_COMMITTER_EMAIL: this.identity.email,
      ...this.extraEnv,
    };
  }
}

type SpawnOutcome =
  | { kind: "exited"; exitCode: number; stdout: string; stderr: string }
  | { kind: "timed_out"; stderr: string }
  | { kind: "spawn_failed"; error: Error };

function spawnGit(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  input: string | undefined,
): Promise<SpawnOutcome> {
  return new Promise((resolve) => {
    const child = spawn("git", args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    // git may exit before reading all of stdin; its exit code tells what happened, not EPIPE.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? "");
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ kind: "spawn_failed", error });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const err = Buffer.concat(stderr).toString("utf8");
      if (timedOut) resolve({ kind: "timed_out", stderr: err });
      else
        resolve({
          kind: "exited",
          exitCode: code ?? -1,
          stdout: Buffer.concat(stdout).toString("utf8"),
          stderr: err,
        });
    });
  });
}
