import type { Git } from "./git.js";

/** Names the pull request a commit belongs to, in the commit message; survives into the target. */
export const PR_TRAILER_KEY = "Mainline-PR";

// A bound on how far back a projected branch is read; a lane never holds more commits than this.
const MAX_COMMITS_READ = 10_000;

// How far back the target is searched for PRs that already landed: those merging right now.
const RECENT_TARGET_COMMITS = 1_000;

const LOG_FORMAT = `--format=%H%x1f%P%x1f%(trailers:key=${PR_TRAILER_KEY},valueonly,separator=%x2C)%x1e`;

export interface ProjectedCommits {
  readonly baseSha: string;
  readonly commitsByPr: Record<number, string>;
}

export interface ReadOptions {
  /** PRs the branch may lack (PRs ahead the base already held, skipped when it was built). */
  readonly mayBeAbsent?: ReadonlySet<number>;
  /** Read only commits not reachable from here (the base or the target): the base is below them. */
  readonly below?: string;
}

/**
 * Reads back which commit is each PR's last on a projected branch, walking first parents from
 * the tip. PRs appear in reverse of `prNumbers`, one or more commits each; the first commit that
 * breaks that sequence is the base. A PR allowed to be absent is held by the commit below it.
 * Returns undefined when the branch does not hold exactly them.
 */
export async function readProjectedCommits(
  git: Git,
  tipSha: string,
  prNumbers: readonly number[],
  options: ReadOptions = {},
): Promise<ProjectedCommits | undefined> {
  const log = await git.text([
    "log",
    "--first-parent",
    `--max-count=${MAX_COMMITS_READ}`,
    LOG_FORMAT,
    tipSha,
    ...(options.below !== undefined ? ["--not", options.below] : []),
    "--",
  ]);
  const absentOk = (from: number, to: number) =>
    prNumbers.slice(from, to).every((n) => options.mayBeAbsent?.has(n) === true);
  const commitsByPr: Record<number, string> = {};
  let group = prNumbers.length;
  let baseSha: string | undefined;
  for (const record of log.split("\x1e")) {
    const [sha, parents, trailer] = record.trim().split("\x1f");
    if (!sha) continue;
    const pr = Number(trailer?.split(",").at(-1)?.trim());
    const at = prNumbers.lastIndexOf(pr, group);
    if (at === -1) {
      baseSha = sha;
      break;
    }
    if (at !== group) {
      if (!absentOk(at + 1, group)) return undefined;
      commitsByPr[pr] = sha;
      group = at;
    }
    baseSha = parents?.split(" ")[0] || undefined;
  }
  if (baseSha === undefined || !absentOk(0, group)) return undefined;
  prNumbers.forEach((n, i) => {
    commitsByPr[n] ??= i === 0 ? baseSha : commitsByPr[prNumbers[i - 1]!]!;
  });
  return { baseSha, commitsByPr };
}

/** Which of `prNumbers` already landed on the branch at `sha` (a recent commit names them). */
export async function pullRequestsLanded(
  git: Git,
  sha: string,
  prNumbers: readonly number[],
): Promise<Set<number>> {
  if (prNumbers.length === 0) return new Set();
  const log = await git.text([
    "log",
    "--first-parent",
    `--max-count=${RECENT_TARGET_COMMITS}`,
    LOG_FORMAT,
    sha,
    "--",
  ]);
  const wanted = new Set(prNumbers);
  const landed = new Set<number>();
  for (const record of log.split("\x1e")) {
    const trailer = record.trim().split("\x1f")[2];
    const pr = Number(trailer?.split(",").at(-1)?.trim());
    if (wanted.has(pr)) landed.add(pr);
  }
  return landed;
}
