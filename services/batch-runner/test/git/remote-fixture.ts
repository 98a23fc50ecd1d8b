import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Git } from "../../src/git/git.js";
import { RepositoryCache } from "../../src/git/repository-cache.js";

const DEVELOPER = { name: "Dev Eloper", email: "dev@example.com" };

/**
 * A real bare "remote" with a developer's clone pushing to it (target branch, pull request refs),
 * and a RepositoryCache for the code under test, all in one temporary directory.
 */
export class RemoteFixture {
  readonly remote: Git;
  readonly clone: Git;
  readonly cache: RepositoryCache;

  private constructor(readonly root: string) {
    this.remote = new Git(join(root, "remote.git"));
    this.clone = new Git(join(root, "clone"), { identity: DEVELOPER });
    this.cache = new RepositoryCache({ workDir: join(root, "work") });
  }

  get url(): string {
    return this.remote.cwd;
  }

  static async create(): Promise<RemoteFixture> {
    const fixture = new RemoteFixture(await mkdtemp(join(tmpdir(), "mainline-git-")));
    await mkdir(fixture.remote.cwd);
    await fixture.remote.run(["init", "--quiet", "--bare", "--initial-branch=main"]);
    // A reflog on the remote records every update of its branches: the proof of no force-push.
    await fixture.remote.run(["config", "core.logAllRefUpdates", "always"]);
    await fixture.clone.at(fixture.root).run(["clone", "--quiet", fixture.url, "clone"]);
    await fixture.clone.run(["checkout", "--quiet", "-b", "main"]);
    await fixture.commit(
      { "README.md": "hello\n", "src/app.txt": "line 1\nline 2\nline 3\n" },
      "Initial commit",
    );
    await fixture.clone.run(["push", "--quiet", "origin", "main"]);
    return fixture;
  }

  async dispose(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }

  /** Commits files on the clone's current HEAD and returns the sha. */
  async commit(files: Record<string, string>, message: string): Promise<string> {
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(this.clone.cwd, path)), { recursive: true });
      await writeFile(join(this.clone.cwd, path), content);
    }
    await this.clone.run(["add", "--all"]);
    await this.clone.run(["commit", "--quiet", "--allow-empty", "-m", message]);
    return this.clone.text(["rev-parse", "HEAD"]);
  }

  /** Pushes a new commit on the remote's target branch (someone merging outside the queue). */
  async advanceTarget(files: Record<string, string>, message: string, branch = "main"): Promise<string> {
    await this.clone.run(["fetch", "--quiet", "origin", branch]);
    await this.clone.run(["checkout", "--quiet", "--detach", "FETCH_HEAD"]);
    const sha = await this.commit(files, message);
    await this.clone.run(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`]);
    return sha;
  }

  /** Opens pull request `number` from the target's current head with one commit per entry. */
  async openPullRequest(
    number: number,
    commits: Array<{ files: Record<string, string>; message: string }>,
    options: { base?: string; ref?: string } = {},
  ): Promise<string> {
    await this.clone.run(["fetch", "--quiet", "origin", options.base ?? "main"]);
    await this.clone.run(["checkout", "--quiet", "--detach", "FETCH_HEAD"]);
    let head = "";
    for (const c of commits) head = await this.commit(c.files, c.message);
    await this.clone.run(["push", "--quiet", "origin", `HEAD:${options.ref ?? `refs/pull/${number}/head`}`]);
    return head;
  }

  /** The remote's sha of a ref, or undefined when the ref does not exist. */
  async remoteSha(ref: string): Promise<string | undefined> {
    const result = await this.remote.run(["rev-parse", "--verify", "--quiet", ref], { okExitCodes: [1] });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }

  async remoteBranches(): Promise<string[]> {
    return (await this.remote.text(["for-each-ref", "--format=%(refname:short)", "refs/heads"]))
      .split("\n")
      .filter(Boolean);
  }

  /** First-parent history of a remote ref, newest first: sha, parents, subject, full message. */
  async log(
    ref: string,
    count: number,
  ): Promise<Array<{ sha: string; parents: string[]; subject: string; body: string; author: string }>> {
    const out = await this.remote.text([
      "log",
      "--first-parent",
      `-${count}`,
      "--format=%H%x1f%P%x1f%s%x1f%B%x1f%an%x1e",
      ref,
    ]);
    return out
      .split("\x1e")
      .map((r) => r.trim())
      .filter(Boolean)
      .map((r) => {
        const [sha = "", parents = "", subject = "", body = "", author = ""] = r.split("\x1f");
        return { sha, parents: parents.split(" ").filter(Boolean), subject, body, author };
      });
  }

  /** Old and new sha of every update the remote's reflog recorded for a branch, oldest first. */
  async reflog(branch: string): Promise<Array<{ from: string; to: string }>> {
    const text = await readFile(join(this.remote.cwd, "logs", "refs", "heads", branch), "utf8");
    return text
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [from = "", to = ""] = line.split(" ");
        return { from, to };
      });
  }

  /** Worktrees the code under test left registered in any mirror. */
  async leftoverWorktrees(): Promise<string[]> {
    const mirror = await this.cache.open(this.url);
    const list = await mirror.git.text(["worktree", "list", "--porcelain"]);
    return list
      .split("\n")
      .filter((line) => line.startsWith("worktree "))
      .map((line) => line.slice("worktree ".length))
      .filter((path) => path !== mirror.dir);
  }
}
