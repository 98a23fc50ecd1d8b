import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { Git, type GitOptions } from "./git.js";
import { GitCredentials } from "./git-credentials.js";
import { GitCommandError, RemoteRefNotFoundError } from "./git-errors.js";
import { assertRemoteUrl } from "./ref-names.js";
import { SerialLock } from "./serial-lock.js";

export interface RepositoryCacheOptions extends GitOptions {
  /** Holds one bare mirror per remote and the temporary worktrees; local to this replica. */
  readonly workDir: string;
  /** Resolves a connection's credentials secret into git's environment; none: remotes without credentials. */
  readonly credentials?: GitCredentials;
}

/** What a push did to one remote ref; a rejection is an answer (someone else got there), not a fault. */
export type PushOutcome = "pushed" | "rejected";

const MIRROR_REF_PREFIX = "refs/mirror/";

// Someone else updated the ref first: a non-fast-forward against a newer value, or the remote's
// ref lock taken by a concurrent push. Other "[remote rejected]" reasons (hooks, branch
// protection) are real failures.
const LOST_PUSH_RACE = /! \[rejected\]|\(fetch first\)|non-fast-forward|cannot lock ref|incorrect old value/;

/**
 * One local bare repository per remote URL, fetched on demand, so repeated jobs on a repository
 * fetch only what changed instead of cloning. Within a process, callers serialise their git work
 * on a mirror through `exclusive`; replicas each keep their own work dir.
 */
export class RepositoryCache {
  private readonly lock = new SerialLock();
  private readonly gitOptions: GitOptions;

  constructor(private readonly options: RepositoryCacheOptions) {
    this.gitOptions = { identity: options.identity, timeoutMs: options.timeoutMs, env: options.env };
  }

  get workDir(): string {
    return this.options.workDir;
  }

  /**
   * The mirror of `remoteUrl`, created (empty) on first use; fetching is up to the caller. Its git commands
   * authenticate with the named credentials secret, or the GitHub App installation's token, if any.
   */
  async open(remoteUrl: string, credentialsSecretName = "", githubInstallationId?: number): Promise<Mirror> {
    assertRemoteUrl("remoteUrl", remoteUrl);
    const dir = join(this.options.workDir, "mirrors", mirrorDirName(remoteUrl));
    const credentials = await (this.options.credentials ?? new GitCredentials(undefined)).environment(
      credentialsSecretName,
      githubInstallationId,
    );
    const git = new Git(dir, { ...this.gitOptions, env: { ...this.options.env, ...credentials } });
    const mirror = new Mirror(remoteUrl, git, this.options.workDir, this.lock);
    await mirror.exclusive(async () => {
      if (existsSync(join(dir, "HEAD"))) return;
      // Built aside and renamed into place, so a crash mid-way never leaves a half-made mirror.
      await mkdir(join(this.options.workDir, "mirrors"), { recursive: true });
      const staging = await mkdtemp(join(this.options.workDir, "mirrors", ".staging-"));
      const staged = new Git(staging, this.gitOptions);
      await staged.run(["init", "--quiet", "--bare", "."]);
      await staged.run(["config", "remote.origin.url", remoteUrl]);
      await rename(staging, dir);
    });
    return mirror;
  }
}

export class Mirror {
  constructor(
    readonly remoteUrl: string,
    readonly git: Git,
    private readonly workDir: string,
    private readonly lock: SerialLock,
  ) {}

  get dir(): string {
    return this.git.cwd;
  }

  /** Runs `task` while no other job of this process touches this mirror. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.lock.run(this.dir, task);
  }

  /** Where the mirror keeps its copy of a remote ref (never a checked-out branch). */
  localRef(remoteRef: string): string {
    return MIRROR_REF_PREFIX + remoteRef.slice("refs/".length);
  }

  /** The remote's current sha of each named ref that exists there. */
  async lsRemote(refs: readonly string[]): Promise<Map<string, string>> {
    const out = await this.git.text(["ls-remote", "origin", ...refs]);
    const wanted = new Set(refs);
    const found = new Map<string, string>();
    for (const line of out.split("\n")) {
      const [sha, ref] = line.split("\t");
      if (sha && ref && wanted.has(ref)) found.set(ref, sha);
    }
    return found;
  }

  /** Fetches the named remote refs and returns the sha each now has locally. */
  async fetch(refs: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(refs)];
    const refspecs = unique.map((ref) => `+${ref}:${this.localRef(ref)}`);
    try {
      await this.git.run(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "origin", ...refspecs]);
    } catch (error) {
      const missing =
        error instanceof GitCommandError ? /couldn't find remote ref (\S+)/.exec(error.stderr) : null;
      if (missing?.[1]) throw new RemoteRefNotFoundError(missing[1]);
      throw error;
    }
    const shas = new Map<string, string>();
    for (const ref of unique)
      shas.set(ref, await this.git.text(["rev-parse", "--verify", `${this.localRef(ref)}^{commit}`]));
    return shas;
  }

  async hasCommit(sha: string): Promise<boolean> {
    const result = await this.git.run(["cat-file", "-e", `${sha}^{commit}`], { okExitCodes: [1, 128] });
    return result.exitCode === 0;
  }

  /** Makes sure a commit named by sha is present, fetching it by id if no fetched ref reached it. */
  async ensureCommit(sha: string): Promise<void> {
    if (await this.hasCommit(sha)) return;
    const fetched = await this.git.run(
      ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "origin", sha],
      {
        okExitCodes: [1, 128],
      },
    );
    if (fetched.exitCode !== 0 || !(await this.hasCommit(sha))) throw new RemoteRefNotFoundError(sha);
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const result = await this.git.run(["merge-base", "--is-ancestor", ancestor, descendant], {
      okExitCodes: [1],
    });
    return result.exitCode === 0;
  }

  /** Pushes without force: a ref that moved elsewhere is reported as rejected, never overwritten. */
  async push(sha: string, remoteRef: string): Promise<PushOutcome> {
    try {
      await this.git.run(["push", "--no-verify", "origin", `${sha}:${remoteRef}`]);
      return "pushed";
    } catch (error) {
      if (error instanceof GitCommandError && LOST_PUSH_RACE.test(error.stderr)) return "rejected";
      throw error;
    }
  }

  /** Deletes remote refs; refs already gone are not an error. */
  async deleteRemoteRefs(remoteRefs: readonly string[]): Promise<string[]> {
    const existing = await this.lsRemote(remoteRefs);
    const doomed = remoteRefs.filter((ref) => existing.has(ref));
    if (doomed.length > 0)
      await this.git.run(["push", "--quiet", "--no-verify", "origin", ...doomed.map((ref) => `:${ref}`)]);
    for (const ref of remoteRefs) {
      await this.git.run(["update-ref", "-d", this.localRef(ref)]);
    }
    return doomed;
  }

  /** A detached worktree at `sha` in a fresh temporary directory. Call under `exclusive`. */
  async addWorktree(sha: string): Promise<string> {
    const parent = join(this.workDir, "worktrees");
    await mkdir(parent, { recursive: true });
    const path = await mkdtemp(join(parent, "wt-"));
    try {
      await this.git.run(["worktree", "add", "--quiet", "--detach", path, sha]);
    } catch (error) {
      await rm(path, { recursive: true, force: true });
      throw error;
    }
    return path;
  }

  /** Removes a worktree made by `addWorktree`, whatever state a failed merge left it in. */
  async removeWorktree(path: string): Promise<void> {
    await this.git.run(["worktree", "remove", "--force", "--force", path], { okExitCodes: [128] });
    await rm(path, { recursive: true, force: true });
    await this.git.run(["worktree", "prune"]);
  }
}

function mirrorDirName(remoteUrl: string): string {
  const hash = createHash("sha256").update(remoteUrl).digest("hex").slice(0, 16);
  const readable = remoteUrl
    .replace(/\.git$/, "")
    .split(/[/:]/)
    .filter(Boolean)
    .slice(-2)
    .join("-")
    .replace(/[^A-Za-z0-9_-]/g, "_");
  return `${readable}-${hash}.git`;
}
