import { type RecentRunOutcome } from "@mainline/contract";
import type { RunContext } from "../status/test-status.js";
import type { TestOutcome } from "@mainline/junit";

/** How many of a test's latest runs it keeps: enough to see a pattern, small enough for every test in memory. */
export const RECENT_RUNS_KEPT = 10;

/** passed; failed (its last attempt failed); flaky (an attempt failed, a later one passed). */
export type { RecentRunOutcome };

/** One run of one test, as its page lists it. */
export interface RecentRun {
  /** When the results happened (epoch ms). */
  at: number;
  outcome: RecentRunOutcome;
  context: RunContext;
  branch: string;
  commitSha: string;
  prNumber?: number;
}

/** The outcome of a run from its attempts in report order (skipped attempts say nothing). */
export function runOutcome(attempts: readonly TestOutcome[]): RecentRunOutcome | undefined {
  const ran = attempts.filter((o) => o !== "skipped");
  const last = ran[ran.length - 1];
  if (last === undefined) return undefined;
  const failedAny = ran.some((o) => o === "failed" || o === "error");
  if (last === "failed" || last === "error") return "failed";
  return failedAny ? "flaky" : "passed";
}

/**
 * `runs` (oldest first) with `run` in its place by time, keeping the latest RECENT_RUNS_KEPT: uploads may arrive
 * out of order, and a late one older than everything kept changes nothing. A new array; the old one may be read.
 */
export function withRecentRun(runs: readonly RecentRun[], run: RecentRun): RecentRun[] {
  let i = runs.length;
  while (i > 0 && (runs[i - 1] as RecentRun).at > run.at) i--;
  const next = [...runs.slice(0, i), run, ...runs.slice(i)];
  return next.length > RECENT_RUNS_KEPT ? next.slice(next.length - RECENT_RUNS_KEPT) : next;
}
