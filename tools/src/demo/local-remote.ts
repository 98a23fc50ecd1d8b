import { execFile } from "node:child_process";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Where the batch-runner pushes test branches (its default prefix); each push is one test run started. */
export const TEST_BRANCH_PREFIX = "refs/heads/mainline/test/";
const ZERO_SHA = /^0+$/;

/** A file's new content, or null to delete it. */
export type FileChanges = Readonly<Record<string, string | null>>;

/**
 * A git server on this machine: a bare repository that pull requests are pushed to as branches and
 * `refs/pull/N/head` refs (the layout GitHub uses, and Mainline's default pull ref pattern), plus the working
 * clone they are made in. A post-receive hook logs every ref update, so the pushes Mainline makes can be counted.
 */
export class LocalRemote {
  private constructor(
    /** Holds both repositories. */
    readonly dir: string,
    readonly remoteDir: string,
    readonly workDir: string,
    readonly targetBranch: string,
    readonly baseSha: string,
  ) {}

  static async create(dir: string, files: FileChanges, targetBranch = "main"): Promise<LocalRemote> {
    const remoteDir = path.join(dir, "remote.git");
    const workDir = path.join(dir, "work");
    await mkdir(dir, { recursive: true });
    await git(dir, "init", "-q", "--bare", `--initial-branch=${targetBranch}`, remoteDir);
    // Every ref update is logged, so a reader can check there was no force-push.
    await git(remoteDir, "config", "core.logAllRefUpdates", "always");
    const hook = path.join(remoteDir, "hooks", "post-receive");
    await writeFile(hook, '#!/bin/sh\n# One line per pushed ref: "<old> <new> <ref>".\ncat >> pushes.log\n');
    await chmod(hook, 0o755);
    await git(dir, "init", "-q", `--initial-branch=${targetBranch}`, workDir);
    await git(workDir, "remote", "add", "origin", remoteDir);
    await writeChanges(workDir, files);
    await git(workDir, "add", "-A");
    await git(workDir, "commit", "-q", "-m", "Initial commit");
    await git(workDir, "push", "-q", "origin", `HEAD:refs/heads/${targetBranch}`);
    const baseSha = await git(workDir, "rev-parse", "HEAD");
    return new LocalRemote(dir, remoteDir, workDir, targetBranch, baseSha);
  }

  /** One commit on `branch` from the base, pushed as the branch and as refs/pull/<number>/head; returns its sha. */
  async pushPullRequest(
    number: number,
    branch: string,
    title: string,
    changes: FileChanges,
  ): Promise<string> {
    await git(this.workDir, "checkout", "-q", "-B", branch, this.baseSha);
    await writeChanges(this.workDir, changes);
    await git(this.workDir, "add", "-A");
    await git(this.workDir, "commit", "-q", "-m", title);
    await git(
      this.workDir,
      "push",
      "-q",
      "-f",
      "origin",
      `HEAD:refs/heads/${branch}`,
      `HEAD:refs/pull/${number}/head`,
    );
    return git(this.workDir, "rev-parse", "HEAD");
  }

  /** `git log --oneline` of a branch on the remote, newest first. */
  async log(branch = this.targetBranch): Promise<string[]> {
    return (await git(this.remoteDir, "log", "--oneline", branch)).split("\n").filter(Boolean);
  }

  /** Subjects and parent counts of the commits on `branch` after the base, oldest first. */
  async commitsSinceBase(branch = this.targetBranch): Promise<{ subject: string; parents: number }[]> {
    const out = await git(
      this.remoteDir,
      "log",
      "--reverse",
      "--format=%P%x09%s",
      `${this.baseSha}..${branch}`,
    );
    return out
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [parents = "", subject = ""] = line.split("\t");
        return { subject, parents: parents.split(" ").filter(Boolean).length };
      });
  }

  /** Branches pushed under the test-branch prefix since the remote was made: the test runs Mainline started. */
  async testBranchesPushed(): Promise<number> {
    let text: string;
    try {
      text = await readFile(path.join(this.remoteDir, "pushes.log"), "utf8");
    } catch {
      return 0;
    }
    const created = new Set<string>();
    for (const line of text.split("\n")) {
      const [old, , ref] = line.split(" ");
      if (old && ZERO_SHA.test(old) && ref?.startsWith(TEST_BRANCH_PREFIX)) created.add(ref);
    }
    return created.size;
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function writeChanges(dir: string, changes: FileChanges): Promise<void> {
  for (const [file, content] of Object.entries(changes)) {
    const full = path.join(dir, file);
    if (content === null) {
      await rm(full, { force: true });
    } else {
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, content);
    }
  }
}

/** Runs git with a fixed identity and without the user's config, so the demo's commits are the same everywhere. */
async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Demo Developer",
      GIT_AUTHOR_EMAIL: "dev@demo.invalid",
      GIT_COMMITTER_NAME: "Demo Developer",
      GIT_COMMITTER_EMAIL: "dev@demo.invalid",
    },
  });
  return stdout.trim();
}
