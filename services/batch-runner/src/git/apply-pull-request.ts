import { type MergeMethod } from "@mainline/contract";
import type { Git } from "./git.js";
import { MergeConflictError } from "./git-errors.js";
import { PR_TRAILER_KEY } from "./pr-trailer.js";

export type { MergeMethod };

export const MERGE_METHODS: readonly MergeMethod[] = ["MERGE_COMMIT", "SQUASH", "REBASE"];

export interface PullRequestToApply {
  readonly number: number;
  readonly title: string;
  /** The head sha the queue enqueued; a different head on the remote fails the run. */
  readonly expectedHeadSha?: string;
  /** Shown in a merge commit's subject like GitHub's "from owner/branch". */
  readonly headLabel?: string;
  /**
   * A PR ahead of the ones under test, applied for its content only: when the base already holds
   * it (it merged while this run was decided), it is skipped rather than applied a second time.
   */
  readonly aheadOnly?: boolean;
}

/**
 * Applies one pull request on top of the worktree's HEAD as that PR's own commit(s) and returns
 * the new HEAD. Every commit made here carries the PR trailer, which is how a redelivered job
 * reads back which commit belongs to which PR. The worktree must be clean on entry.
 */
export async function applyPullRequest(
  worktree: Git,
  pr: PullRequestToApply,
  headSha: string,
  method: MergeMethod,
): Promise<string> {
  const trailer = `${PR_TRAILER_KEY}: ${pr.number}`;
  const title = singleLine(pr.title);
  switch (method) {
    case "SQUASH": {
      await mergeOrConflict(worktree, pr, ["merge", "--squash", "--no-verify", headSha]);
      // An already-contained PR still gets its own (empty) commit: each PR lands as one commit.
      await worktree.run(commitArgs(["-m", `${title} (#${pr.number})`], trailer));
      break;
    }
    case "MERGE_COMMIT": {
      const before = await head(worktree);
      const subject = `Merge pull request #${pr.number}${pr.headLabel ? ` from ${singleLine(pr.headLabel)}` : ""}`;
      const message = ["-m", subject, "-m", title, "-m", trailer];
      await mergeOrConflict(worktree, pr, [
        "merge",
        "--no-ff",
        "--no-edit",
        "--no-verify",
        ...message,
        headSha,
      ]);
      if ((await head(worktree)) === before) {
        // "Already up to date": git makes no merge commit, but the PR still needs its own.
        const tree = await worktree.text(["rev-parse", "HEAD^{tree}"]);
        const merge = await worktree.text(["commit-tree", tree, "-p", before, "-p", headSha, ...message]);
        await worktree.run(["reset", "--quiet", "--hard", merge]);
      }
      break;
    }
    case "REBASE": {
      const commits = (await worktree.text(["rev-list", "--reverse", "--no-merges", `HEAD..${headSha}`]))
        .split("\n")
        .filter(Boolean);
      if (commits.length === 0) {
        await worktree.run(commitArgs(["-m", `${title} (#${pr.number})`], trailer));
      }
      for (const commit of commits) {
        await mergeOrConflict(worktree, pr, ["cherry-pick", "--no-commit", commit]);
        // -C keeps the original author and message; the committer becomes Mainline.
        await worktree.run(commitArgs(["-C", commit], trailer));
      }
      break;
    }
  }
  return head(worktree);
}

async function mergeOrConflict(worktree: Git, pr: PullRequestToApply, args: string[]): Promise<void> {
  const result = await worktree.run(args, { okExitCodes: [1] });
  if (result.exitCode === 0) return;
  const unmerged = await worktree.text(["diff", "--name-only", "--diff-filter=U"]);
  const files = unmerged.split("\n").filter(Boolean);
  if (files.length > 0 || /CONFLICT/.test(result.stdout)) throw new MergeConflictError(pr.number, files);
  // Exit 1 without a conflict (e.g. untracked files in the way) is a real failure; re-run to raise it.
  await worktree.run(args);
}

/** A commit of what is staged (possibly nothing) with the given message options and the PR trailer. */
function commitArgs(message: string[], trailer: string): string[] {
  return ["commit", "--quiet", "--allow-empty", "--no-verify", ...message, "--trailer", trailer];
}

function head(worktree: Git): Promise<string> {
  return worktree.text(["rev-parse", "HEAD"]);
}

function singleLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim();
}
