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

export interface TargetBranchRun {
  at: number;
  failed: boolean;
}

export interface CommitOutcomes {
  sha: string;
  at: number;
  failed: boolean;
  passed: boolean;
}

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
  targetBranchRuns: TargetBranchRun[];
  /** Outcomes seen per commit in CI runs, most recent last, at most recentCommitsTracked. */
  recentCommits: CommitOutcomes[];
  /** Merge-queue runs failed in a row since the last pass in the queue or on the target branch. */
  mergeQueueFailureStreak: number;
  /** The latest flaky signal; the test stays flaky for the quiet window after it. */
  lastFlakySignal?: FlakySignal;
}

export const EMPTY_EVIDENCE: Readonly<TestEvidence> = Object.freeze({
  targetBranchRuns: [],
  recentCommits: [],
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
  const seen = next.recentCommits.find((entry) => entry.sha === observation.commitSha);
  if (seen?.failed && seen.passed && !(failed && passed)) {
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
  for (const run of evidence.targetBranchRuns) {
    if (run.at < since || run.at > now) continue;
    runs++;
    if (run.failed) failures++;
    if (run.failed && !previousFailed) failureStreaks++;
    previousFailed = run.failed;
  }
  return { runs, failures, failureStreaks };
}

export function describeHours(hours: number): string {
  if (hours % 24 === 0) return hours === 24 ? "24 hours" : `${hours / 24} days`;
  return hours === 1 ? "hour" : `${hours} hours`;
}

/** Late uploads arrive out of order; runs stay sorted by time so "the last N runs" means the latest N. */
function insertRun(
  runs: readonly TargetBranchRun[],
  run: TargetBranchRun,
  settings: StatusSettings,
): TargetBranchRun[] {
  const next = [...runs];
  let index = next.length;
  while (index > 0 && (next[index - 1] as TargetBranchRun).at > run.at) index--;
  next.splice(index, 0, run);
  return next.slice(-settings.targetBranchSampleSize);
}

function recordCommit(
  commits: readonly CommitOutcomes[],
  observation: TestObservation,
  failed: boolean,
  passed: boolean,
  settings: StatusSettings,
): CommitOutcomes[] {
  const at = commits.findIndex((entry) => entry.sha === observation.commitSha);
  const previous = commits[at];
  const merged: CommitOutcomes = {
    sha: observation.commitSha,
    at: Math.max(previous?.at ?? observation.at, observation.at),
    failed: (previous?.failed ?? false) || failed,
    passed: (previous?.passed ?? false) || passed,
  };
  // Commits are kept sorted by time: the merged entry goes after every other one not later than it
  // (where a stable sort of [...others, merged] puts it), without sorting per result.
  const next: CommitOutcomes[] = [];
  let placed = false;
  for (let index = 0; index < commits.length; index++) {
    const entry = commits[index] as CommitOutcomes;
    if (index === at) continue;
    if (!placed && entry.at > merged.at) {
      next.push(merged);
      placed = true;
    }
    next.push(entry);
  }
  if (!placed) next.push(merged);
  return next.length > settings.recentCommitsTracked ? next.slice(-settings.recentCommitsTracked) : next;
}

function latest(current: FlakySignal | undefined, candidate: FlakySignal): FlakySignal {
  return current !== undefined && current.at > candidate.at ? current : candidate;
}

function shortSha(sha: string): string {
  return /^[0-9a-f]{40}$/i.test(sha) ? sha.slice(0, 7) : sha;
}
