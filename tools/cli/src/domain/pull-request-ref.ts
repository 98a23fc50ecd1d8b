import { CliError } from "../cli-error.js";

/** How a PR is named on the command line: its number, or (for `status`) its head branch. */
export type PullRequestRef = { number: number } | { branch: string };

export function parsePullRequestNumber(text: string, what = "PR number"): number {
  const trimmed = text.trim().replace(/^#/, "");
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1 || !Number.isSafeInteger(Number(trimmed))) {
    throw new CliError(`${what} must be a positive whole number (got "${text}")`);
  }
  return Number(trimmed);
}

/** `12` and `#12` are numbers; anything else is a head branch name. */
export function parsePullRequestRef(text: string): PullRequestRef {
  const trimmed = text.trim();
  if (trimmed === "")
    throw new CliError("a PR must be given as its number or its head branch (got an empty string)");
  return /^#?\d+$/.test(trimmed) ? { number: parsePullRequestNumber(trimmed) } : { branch: trimmed };
}

export function describePullRequestRef(ref: PullRequestRef): string {
  return "number" in ref ? `#${ref.number}` : `branch ${ref.branch}`;
}
