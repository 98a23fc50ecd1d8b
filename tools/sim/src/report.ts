import type { SimulationReport } from "./simulate.js";

const fixed = (n: number, digits = 1): string => n.toFixed(digits);

export function formatReportRow(name: string, r: SimulationReport): string {
  const t = r.timeToMergeMinutes;
  return [
    name.padEnd(28),
    `${r.merged}/${r.prs}`.padStart(8),
    String(r.failed).padStart(6),
    fixed(r.mergedPerHour).padStart(8),
    fixed(r.runsPerMergedPr, 2).padStart(9),
    fixed(t.p50, 0).padStart(6),
    fixed(t.p90, 0).padStart(6),
    fixed(t.p99, 0).padStart(6),
  ].join(" ");
}

export function formatReportTable(rows: readonly (readonly [string, SimulationReport])[]): string {
  const header = [
    "strategy".padEnd(28),
    "merged".padStart(8),
    "failed".padStart(6),
    "merged/h".padStart(8),
    "runs/merge".padStart(9),
    "p50m".padStart(6),
    "p90m".padStart(6),
    "p99m".padStart(6),
  ].join(" ");
  return [header, ...rows.map(([name, r]) => formatReportRow(name, r))].join("\n");
}
