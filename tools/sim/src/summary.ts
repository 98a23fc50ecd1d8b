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
