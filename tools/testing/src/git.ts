import { execFileSync, spawnSync } from "node:child_process";

/**
 * Runs the real git CLI as a developer would (a fixed author and committer), for tests that build real
 * repositories and remotes; returns trimmed stdout and throws with git's stderr when it fails.
 */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "Dev",
      GIT_AUTHOR_EMAIL: "dev@example.com",
      GIT_COMMITTER_NAME: "Dev",
      GIT_COMMITTER_EMAIL: "dev@example.com",
    },
  }).trim();
}

/**
 * How a branch of a repository that keeps reflogs (`core.logAllRefUpdates always`, as a bare remote must be
 * told to) moved after it was created: the number of updates, and those that were not fast-forwards (the old
 * value is not an ancestor of the new one: a force-push). Assert both, so that a check of each move cannot pass
 * by finding no move at all.
 */
export function branchMoves(repo: string, ref: string): { moves: number; forced: string[] } {
  const values = git(repo, "reflog", "show", "--format=%H", ref).split("\n").filter(Boolean).reverse();
  const forced: string[] = [];
  for (let i = 1; i < values.length; i++) {
    const [from, to] = [values[i - 1] as string, values[i] as string];
    const ancestor = spawnSync("git", ["merge-base", "--is-ancestor", from, to], { cwd: repo });
    if (ancestor.status !== 0) forced.push(`${from} -> ${to}`);
  }
  return { moves: Math.max(0, values.length - 1), forced };
}
