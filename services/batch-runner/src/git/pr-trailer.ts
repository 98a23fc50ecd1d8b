import type { Git } from "./git.js";

/** Names the pull request a commit belongs to, in the commit message; survives into the target. */
export const PR_TRAILER_KEY = "Mainline-PR";

// A bound on how far back a projected branch is read; a lane never holds more commits than this.
const MAX_COMMITS_READ = 10_000;

export interface ProjectedCommits {
  readonly baseSha: string;
  readonly commitsByPr: Record<number, string>;
}

/**
 * Reads back which commit is each PR's last on a projected branch, walking first parents from
 * the tip. PRs appear in reverse of `prNumbers`, one or more commits each; the first commit that
 * breaks that sequence is the base. Returns undefined when the branch does not hold exactly them.
 */
export async function readProjectedCommits(
  git: Git,
  tipSha: string,
  prNumbers: readonly number[],
): Promise<ProjectedCommits | undefined> {
  const log = await git.text([
    "log",
    "--first-parent",
    `--max-count=${MAX_COMMITS_READ}`,
    `--format=%H%x1f%(trailers:key=${PR_TRAILER_KEY},valueonly,separator=%x2C)%x1e`,
    tipSha,
  ]);
  const commitsByPr: Record<number, string> = {};
  let index = prNumbers.length - 1;
  for (const record of log.split("\x1e")) {
    const [sha, trailer] = record.trim().split("\x1f");
    if (!sha) continue;
    const pr = Number(trailer?.split(",").at(-1)?.trim());
    if (index >= 0 && pr === prNumbers[index]) {
      commitsByPr[pr] ??= sha;
    } else if (index > 0 && pr === prNumbers[index - 1]) {
      index -= 1;
      commitsByPr[pr] = sha;
    } else {
      return index === 0 && prNumbers.every((n) => commitsByPr[n])
        ? { baseSha: sha, commitsByPr }
        : undefined;
    }
  }
  return undefined;
}
