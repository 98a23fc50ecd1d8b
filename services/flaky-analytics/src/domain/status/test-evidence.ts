import { HOUR_MS } from "../durations.js";
import type { TestOutcome } from "@mainline/junit";
import type { StatusSettings } from "./status-settings.js";
import type { RunContext } from "./test-status.js";

/** One result of one test in one run, as the status rules need it. */
export interface TestObservation {
  /** When the run happened (epoch ms). */
  at: number;
  commitSha: string;
  context: RunContext;
  /** The run was on the repository's target branch (ci context); the service knows which that is. */
  onTargetBranch: boolean;
  /** Outcomes of the attempts in this run, in order (reruns included). */
  attempts: readonly TestOutcome[];
}

/**
 * Target-branch runs, oldest first, one column per field (the same position is the same run). Every
 * test of every repository holds its evidence in memory: numbers in one array cost 8 bytes each, where
 * an object per run cost about 60.
 */
export interface TargetBranchRuns {
  at: number[];
  failed: boolean[];
}

/**
 * Outcomes seen per commit in CI runs, most recent last: the shas, and per sha two numbers, its latest
 * run (epoch ms) and what it did (FAILED and/or PASSED added up).
 */
export interface RecentCommits {
  sha: string[];
  seen: number[];
}

const FAILED = 1;
const PASSED = 2;

export interface FlakySignal {
  at: number;
  reason: string;
}

/**
 * What the status rules remember about one test: a bounded summary the service stores next to
 * the test and updates per result, instead of the test's whole history.
 */
export interface TestEvidence {
  /** The most recent target-branch runs, oldest first, at most targetBranchSampleSize. */
  targetBranchRuns: TargetBranchRuns;
  /** Outcomes seen per commit in CI runs, most recent last, at most recentCommitsTracked. */
  recentCommits: RecentCommits;
  /** Merge-queue runs failed in a row since the last pass in the queue or on the target branch. */
  mergeQueueFailureStreak: number;
  /** The latest flaky signal; the test stays flaky for the quiet window after it. */
  lastFlakySignal?: FlakySignal;
}

export const EMPTY_EVIDENCE: Readonly<TestEvidence> = Object.freeze({
  targetBranchRuns: Object.freeze({ at: [], failed: [] }),
  recentCommits: Object.freeze({ sha: [], seen: [] }),
  mergeQueueFailureStreak: 0,
});

/**
 * Folds one observation into the evidence. Spec rule 15: bisection runs are never evidence, and
 * a merge-queue failure is never a flakiness signal (it may be the PR under test, and the same
 * commit can pass on the target branch after the fast-forward); it only counts toward broken
 * while the test keeps failing and does not pass on the target branch.
 */
export function recordObservation(
  evidence: TestEvidence,
  observation: TestObservation,
  settings: StatusSettings,
): TestEvidence {
  const failed = observation.attempts.some((outcome) => outcome === "failed" || outcome === "error");
  const passed = observation.attempts.includes("passed");
  if (observation.context === "bisection" || (!failed && !passed)) return evidence;

  const next: TestEvidence = { ...evidence };
  const commit = () => shortSha(observation.commitSha);
  // A failure and a pass inside one run (a rerun) is flakiness whatever the context: same code, both outcomes.
  if (failed && passed) {
    next.lastFlakySignal = latest(next.lastFlakySignal, {
      at: observation.at,
      reason: `failed and then passed on retry on commit ${commit()}`,
    });
  }

  // The run's verdict: a pass on any attempt is a pass, as the CI job saw it.
  const runFailed = failed && !passed;
  if (observation.context === "merge_queue") {
    next.mergeQueueFailureStreak = runFailed ? evidence.mergeQueueFailureStreak + 1 : 0;
    return next;
  }

  next.recentCommits = recordCommit(evidence.recentCommits, observation, failed, passed, settings);
  const seen = next.recentCommits.sha.indexOf(observation.commitSha);
  if (seen >= 0 && next.recentCommits.seen[2 * seen + 1] === FAILED + PASSED && !(failed && passed)) {
    next.lastFlakySignal = latest(next.lastFlakySignal, {
      at: observation.at,
      reason: `failed and passed on the same commit ${commit()}`,
    });
  }

  if (observation.onTargetBranch) {
    if (!runFailed) next.mergeQueueFailureStreak = 0;
    next.targetBranchRuns = insertRun(
      evidence.targetBranchRuns,
      { at: observation.at, failed: runFailed },
      settings,
    );
    const rate = targetBranchFailureRate(next, settings, observation.at);
    // One unbroken block of failures is a breakage that was fixed, not flakiness: the rate rule
    // needs failures interleaved with passes.
    if (
      rate.runs >= settings.minTargetBranchRuns &&
      rate.failures / rate.runs >= settings.failureRateThreshold &&
      rate.failureStreaks >= 2
    ) {
      next.lastFlakySignal = latest(next.lastFlakySignal, {
        at: observation.at,
        reason:
          `failed ${rate.failures} of ${rate.runs} runs (${Math.round((100 * rate.failures) / rate.runs)}%) ` +
          `on the target branch in the last ${describeHours(settings.rateWindowHours)}`,
      });
    }
  }
  return next;
}

/** Runs, failures and separate blocks of consecutive failures on the target branch in the rate window. */
export function targetBranchFailureRate(
  evidence: TestEvidence,
  settings: StatusSettings,
  now: number,
): { runs: number; failures: number; failureStreaks: number } {
  const since = now - settings.rateWindowHours * HOUR_MS;
  let runs = 0;
  let failures = 0;
  let failureStreaks = 0;
  let previousFailed = false;
  const { at, failed } = evidence.targetBranchRuns;
  for (let index = 0; index < at.length; index++) {
    const runAt = at[index] as number;
    const runFailed = failed[index] === true;
    if (runAt < since || runAt > now) continue;
    runs++;
    if (runFailed) failures++;
    if (runFailed && !previousFailed) failureStreaks++;
    previousFailed = runFailed;
  }
  return { runs, failures, failureStreaks };
}

export function describeHours(hours: number): string {
  if (hours % 24 === 0) return hours === 24 ? "24 hours" : `${hours / 24} days`;
  return hours === 1 ? "hour" : `${hours} hours`;
}

/** Late uploads arrive out of order; runs stay sorted by time so "the last N runs" means the latest N. */
function insertRun(
  runs: TargetBranchRuns,
  run: { at: number; failed: boolean },
  settings: StatusSettings,
): TargetBranchRuns {
  // Copies, not changes: a reader may still hold the previous evidence.
  const at = runs.at.slice();
  const failed = runs.failed.slice();
  let index = at.length;
  while (index > 0 && (at[index - 1] as number) > run.at) index--;
  at.splice(index, 0, run.at);
  failed.splice(index, 0, run.failed);
  const keep = -settings.targetBranchSampleSize;
  return { at: at.slice(keep), failed: failed.slice(keep) };
}

function recordCommit(
  commits: RecentCommits,
  observation: TestObservation,
  failed: boolean,
  passed: boolean,
  settings: StatusSettings,
): RecentCommits {
  const at = commits.sha.indexOf(observation.commitSha);
  const mergedAt = at < 0 ? observation.at : Math.max(commits.seen[2 * at] as number, observation.at);
  const did =
    (at < 0 ? 0 : (commits.seen[2 * at + 1] as number)) | (failed ? FAILED : 0) | (passed ? PASSED : 0);
  // Commits are kept sorted by time: the merged entry goes after every other one not later than it
  // (where a stable sort of [...others, merged] puts it), without sorting per result.
  const count = commits.sha.length + (at < 0 ? 1 : 0);
  const keep = Math.min(count, settings.recentCommitsTracked);
  // Sized exactly (an array grown by push keeps half as much again spare) and filled in place.
  const next: RecentCommits = { sha: new Array<string>(keep), seen: new Array<number>(2 * keep) };
  let to = keep - count;
  const put = (sha: string, time: number, what: number) => {
    if (to >= 0) {
      next.sha[to] = sha;
      next.seen[2 * to] = time;
      next.seen[2 * to + 1] = what;
    }
    to++;
  };
  let placed = false;
  for (let index = 0; index < commits.sha.length; index++) {
    if (index === at) continue;
    const time = commits.seen[2 * index] as number;
    if (!placed && time > mergedAt) {
      put(observation.commitSha, mergedAt, did);
      placed = true;
    }
    put(commits.sha[index] as string, time, commits.seen[2 * index + 1] as number);
  }
  if (!placed) put(observation.commitSha, mergedAt, did);
  return next;
}

function latest(current: FlakySignal | undefined, candidate: FlakySignal): FlakySignal {
  return current !== undefined && current.at > candidate.at ? current : candidate;
}

function shortSha(sha: string): string {
  return /^[0-9a-f]{40}$/i.test(sha) ? sha.slice(0, 7) : sha;
}
