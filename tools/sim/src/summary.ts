import type { SimulationReport } from "./simulate.js";

/** The one JSON object `mainline simulate --json` prints (issue 16; check.mjs reads it). */
export interface SimulationSummary {
  workload: string;
  settings: Record<string, unknown>;
  prs: number;
  merged: number;
  failed: number;
  cancelled: number;
  stuck: number;
  badMerged: number;
  goodFailed: number;
  /** Good PRs failed by flakes (no conflict): what issue 26 brings down. */
  goodFailedByFlakes: number;
  runsPassedByQuarantine: number;
  flakyRetries: number;
  runs: { main: number; bisection: number; total: number };
  runsPerMergedPr: number;
  mergedPerHour: number;
  timeToMergeMinutes: { p50: number; p90: number; p99: number; mean: number };
  hours: number;
}

const round = (n: number, digits: number): number => Number(n.toFixed(digits));

export function summarize(
  workload: string,
  settings: Record<string, unknown>,
  r: SimulationReport,
): SimulationSummary {
  const t = r.timeToMergeMinutes;
  return {
    workload,
    settings,
    prs: r.prs,
    merged: r.merged,
    failed: r.failed,
    cancelled: r.cancelled,
    stuck: r.stuck,
    badMerged: r.badMerged,
    goodFailed: r.goodFailed,
    goodFailedByFlakes: r.goodFailedByFlakes,
    runsPassedByQuarantine: r.runsPassedByQuarantine,
    flakyRetries: r.flakyRetries,
    runs: { main: r.mainRuns, bisection: r.bisectionRuns, total: r.mainRuns + r.bisectionRuns },
    runsPerMergedPr: round(r.runsPerMergedPr, 3),
    mergedPerHour: round(r.mergedPerHour, 3),
    timeToMergeMinutes: {
      p50: round(t.p50, 1),
      p90: round(t.p90, 1),
      p99: round(t.p99, 1),
      mean: round(t.mean, 1),
    },
    hours: round(r.hours, 3),
  };
}

/**
 * One summary for the same settings over several draws of the flakes: every count and figure is the mean of the
 * draws' (p50 the mean of their p50s), but PRs stuck and bad PRs merged are the worst draw's, since one draw that
 * merges a bad PR is one too many. A single draw is returned as it is.
 */
export function meanOfDraws(draws: readonly SimulationSummary[]): SimulationSummary {
  const [first] = draws;
  if (first === undefined) throw new RangeError("meanOfDraws needs at least one draw");
  if (draws.length === 1) return first;
  const mean = (figure: (s: SimulationSummary) => number, digits = 1): number =>
    round(draws.reduce((sum, s) => sum + figure(s), 0) / draws.length, digits);
  const worst = (figure: (s: SimulationSummary) => number): number => Math.max(...draws.map(figure));
  return {
    workload: first.workload,
    settings: first.settings,
    prs: first.prs,
    merged: mean((s) => s.merged),
    failed: mean((s) => s.failed),
    cancelled: mean((s) => s.cancelled),
    stuck: worst((s) => s.stuck),
    badMerged: worst((s) => s.badMerged),
    goodFailed: mean((s) => s.goodFailed),
    goodFailedByFlakes: mean((s) => s.goodFailedByFlakes),
    runsPassedByQuarantine: mean((s) => s.runsPassedByQuarantine),
    flakyRetries: mean((s) => s.flakyRetries),
    runs: {
      main: mean((s) => s.runs.main),
      bisection: mean((s) => s.runs.bisection),
      total: mean((s) => s.runs.total),
    },
    runsPerMergedPr: mean((s) => s.runsPerMergedPr, 3),
    mergedPerHour: mean((s) => s.mergedPerHour, 3),
    timeToMergeMinutes: {
      p50: mean((s) => s.timeToMergeMinutes.p50),
      p90: mean((s) => s.timeToMergeMinutes.p90),
      p99: mean((s) => s.timeToMergeMinutes.p99),
      mean: mean((s) => s.timeToMergeMinutes.mean),
    },
    hours: mean((s) => s.hours, 3),
  };
}

/** The same figures for a person. */
export function describeSummary(s: SimulationSummary): string[] {
  const t = s.timeToMergeMinutes;
  return [
    `workload ${s.workload}: ${s.prs} PRs, settings ${JSON.stringify(s.settings)}`,
    `merged ${s.merged}, failed ${s.failed} (good PRs failed: ${s.goodFailed}), cancelled ${s.cancelled}, stuck ${s.stuck}, bad PRs merged ${s.badMerged}`,
    `CI runs ${s.runs.total} (main ${s.runs.main}, bisection ${s.runs.bisection}), ${s.runsPerMergedPr.toFixed(2)} per merged PR`,
    `failed runs passed by quarantine ${s.runsPassedByQuarantine}, retried for known flaky tests ${s.flakyRetries}, good PRs failed by flakes ${s.goodFailedByFlakes}`,
    `merged per hour ${s.mergedPerHour.toFixed(1)} over ${s.hours.toFixed(1)} h`,
    `time to merge (min): p50 ${t.p50.toFixed(0)}, p90 ${t.p90.toFixed(0)}, p99 ${t.p99.toFixed(0)}, mean ${t.mean.toFixed(0)}`,
  ];
}
