import type { Git } from "./git.js";
import { PR_TRAILER_KEY } from "./pr-trailer.js";

/** One commit of a branch's first-parent line, with the pull request its trailer names. */
export interface HistoryCommit {
  readonly sha: string;
  readonly parents: readonly string[];
  readonly tree: string;
  /** The PR of the commit's last Mainline-PR trailer; undefined for a commit made outside the queue. */
  readonly pr: number | undefined;
}

/**
 * The first-parent commits reachable from `tip` and not from `exclude`, oldest first; undefined
 * when there are more than `limit` (a history that far apart is not one the queue made).
 */
export async function firstParentCommits(
  git: Git,
  tip: string,
  exclude: string,
  limit: number,
): Promise<HistoryCommit[] | undefined> {
  const log = await git.text([
    "log",
    "--first-parent",
    `--max-count=${limit + 1}`,
    `--format=%H%x1f%P%x1f%T%x1f%(trailers:key=${PR_TRAILER_KEY},valueonly,separator=%x2C)%x1e`,
    tip,
    "--not",
    exclude,
    "--",
  ]);
  const commits: HistoryCommit[] = [];
  for (const record of log.split("\x1e")) {
    const [sha, parents, tree, trailer] = record.trim().split("\x1f");
    if (!sha || tree === undefined) continue;
    const pr = Number(trailer?.split(",").at(-1)?.trim());
    commits.push({
      sha,
      parents: parents ? parents.split(" ") : [],
      tree,
      pr: Number.isSafeInteger(pr) && pr > 0 ? pr : undefined,
    });
  }
  return commits.length > limit ? undefined : commits.reverse();
}
