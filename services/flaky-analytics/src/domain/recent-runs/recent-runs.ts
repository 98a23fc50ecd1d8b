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
 * A test's latest runs, oldest first, in two flat arrays: per run two numbers (its time, epoch ms, and
 * its pull request, 0 for none: GitHub numbers them from 1) and four strings (outcome, context, branch,
 * commit sha). Every test of every repository keeps them in memory: ten objects per test cost twice this.
 */
export interface RecentRuns {
  numbers: number[];
  strings: string[];
}

const NUMBERS = 2;
const STRINGS = 4;

export const NO_RECENT_RUNS: Readonly<RecentRuns> = Object.freeze({ numbers: [], strings: [] });

/** The runs one by one, oldest first. */
export function recentRunList(runs: RecentRuns | undefined): RecentRun[] {
  const list: RecentRun[] = [];
  if (runs === undefined) return list;
  for (let i = 0; i * NUMBERS < runs.numbers.length; i++) {
    const [at, prNumber] = runs.numbers.slice(i * NUMBERS, (i + 1) * NUMBERS) as [number, number];
    const [outcome, context, branch, commitSha] = runs.strings.slice(i * STRINGS, (i + 1) * STRINGS) as [
      RecentRunOutcome,
      RunContext,
      string,
      string,
    ];
    list.push({ at, outcome, context, branch, commitSha, ...(prNumber > 0 ? { prNumber } : {}) });
  }
  return list;
}

/** Runs given one by one (oldest first), packed. */
export function recentRunColumns(list: readonly RecentRun[]): RecentRuns {
  return list.reduce<RecentRuns>((runs, run) => withRecentRun(runs, run, Infinity), NO_RECENT_RUNS);
}

/**
 * `runs` with `run` in its place by time, keeping the latest `kept`: uploads may arrive out of order, and a
 * late one older than everything kept changes nothing. New arrays; the old ones may still be read.
 */
export function withRecentRun(runs: RecentRuns, run: RecentRun, kept = RECENT_RUNS_KEPT): RecentRuns {
  const count = runs.numbers.length / NUMBERS;
  let i = count;
  while (i > 0 && (runs.numbers[(i - 1) * NUMBERS] as number) > run.at) i--;
  const drop = Math.max(0, count + 1 - kept);
  const numbers = new Array<number>(runs.numbers.length + NUMBERS - drop * NUMBERS);
  const strings = new Array<string>(runs.strings.length + STRINGS - drop * STRINGS);
  return {
    numbers: insertedNumbers(numbers, runs.numbers, i * NUMBERS, [run.at, run.prNumber ?? 0]),
    strings: insertedStrings(strings, runs.strings, i * STRINGS, [
      run.outcome,
      run.context,
      run.branch,
      run.commitSha,
    ]),
  };
}

/**
 * Fills `next` with `array` and `values` inserted at `at`, less as many first items as `next` is shorter.
 * Sized exactly (an array grown by push keeps half as much again spare) and filled in place.
 */
function insertedNumbers(next: number[], array: readonly number[], at: number, values: readonly number[]) {
  const length = array.length + values.length;
  const drop = length - next.length;
  for (let k = drop; k < length; k++) {
    next[k - drop] = (
      k < at ? array[k] : k < at + values.length ? values[k - at] : array[k - values.length]
    ) as number;
  }
  return next;
}

/**
 * The same for strings, in a function of its own: V8 gives the arrays one line of code writes into the
 * most general element kind it has written, and numbers stored among strings are boxed (16 bytes more each).
 */
function insertedStrings(next: string[], array: readonly string[], at: number, values: readonly string[]) {
  const length = array.length + values.length;
  const drop = length - next.length;
  for (let k = drop; k < length; k++) {
    next[k - drop] = (
      k < at ? array[k] : k < at + values.length ? values[k - at] : array[k - values.length]
    ) as string;
  }
  return next;
}
