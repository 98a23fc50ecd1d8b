import type { SimulationReport } from "@mainline/sim";

/** One row of the figures table of bench/merge-efficiency/README.md. */
export interface ReachRow {
  workload: string;
  settings: string;
  oracle: { p50: number; runs: number; perHour: number };
  reach: { p50: number; runs: number; perHour: number };
}

/** Reads the figures table the way check.mjs does: rows whose first cell names a workload. */
export function readReachTable(readme: string): Map<string, ReachRow> {
  const rows = new Map<string, ReachRow>();
  for (const line of readme.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 9 || !/^\w+-\d+$/.test(cells[1] ?? "")) continue;
    const n = (i: number): number => Number(cells[i]);
    rows.set(cells[1] as string, {
      workload: cells[1] as string,
      settings: cells[2] as string,
      oracle: { p50: n(3), runs: n(4), perHour: n(5) },
      reach: { p50: n(6), runs: n(7), perHour: n(8) },
    });
  }
  return rows;
}

/**
 * Whether one simulation is at the README's "reach" on every figure (p50 and CI runs at most, merged per hour at
 * least), with no bad PR merged and none stuck; a workload without a row only needs the last two.
 */
export function atReach(r: SimulationReport, row: ReachRow | undefined): boolean {
  if (r.badMerged !== 0 || r.stuck !== 0) return false;
  if (row === undefined) return true;
  return (
    r.timeToMergeMinutes.p50 <= row.reach.p50 &&
    r.mainRuns + r.bisectionRuns <= row.reach.runs &&
    r.mergedPerHour >= row.reach.perHour
  );
}
