import { existsSync } from "node:fs";
import { join } from "node:path";
import { WorktreeVanishedError } from "./git-errors.js";
import { assertBranchName, assertSha } from "./ref-names.js";
import type { RepositoryCache } from "./repository-cache.js";

export interface TestCommit {
  readonly remoteUrl: string;
  readonly testBranch: string;
  readonly testBranchSha: string;
}

/**
 * Runs `use` in a detached worktree of a pushed test commit and removes the worktree after,
 * whatever `use` does. The mirror is locked only to add and remove the worktree, so a long
 * test command does not hold up other jobs on the same repository. A worktree gone by the time `use`
 * settles fails with WorktreeVanishedError (retryable), whatever `use` returned: its verdict is not the PRs'.
 */
export async function withTestCommitWorktree<T>(
  cache: RepositoryCache,
  commit: TestCommit,
  use: (path: string) => Promise<T>,
): Promise<T> {
  assertBranchName("testBranch", commit.testBranch);
  assertSha("testBranchSha", commit.testBranchSha);
  const mirror = await cache.open(commit.remoteUrl);
  const path = await mirror.exclusive(async () => {
    // Another replica may have built the branch, so the commit is fetched unless already here.
    if (!(await mirror.hasCommit(commit.testBranchSha)))
      await mirror.fetch([`refs/heads/${commit.testBranch}`]);
    await mirror.ensureCommit(commit.testBranchSha);
    return mirror.addWorktree(commit.testBranchSha);
  });
  try {
    const used = await use(path).catch((error: unknown) => {
      throw existsSync(join(path, ".git")) ? error : new WorktreeVanishedError(path);
    });
    if (!existsSync(join(path, ".git"))) throw new WorktreeVanishedError(path);
    return used;
  } finally {
    await mirror.exclusive(() => mirror.removeWorktree(path));
  }
}
