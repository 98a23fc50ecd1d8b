/** p50 minutes / CI runs / merged per hour of one workload (one run or a geometric mean over seeds). */
export interface Figures {
  p50: number;
  runs: number;
  perHour: number;
}

/** Issue 27 item 1's bar for PARALLEL mode: against the same PRs in one lane, and against the README's "reach". */
export const LANES_BAR = {
  /** At least as good as one lane on all three figures. */
  oneLane: { p50: 1, runs: 1, perHour: 1 },
  /** Clearly better than reach (which ignores lanes): p50 at most 0.8x, runs at most 1x, merged per hour 1.1x. */
  reach: { p50: 0.8, runs: 1, perHour: 1.1 },
} as const;

/** Each figure of `mine` divided by the same figure of `other`. */
export function ratios(mine: Figures, other: Figures): Figures {
  return { p50: mine.p50 / other.p50, runs: mine.runs / other.runs, perHour: mine.perHour / other.perHour };
}

/**
 * The figures that miss the bar, by name (p50 and runs at most the bar, merged per hour at least). Ratios are
 * compared at two decimals, as printed, so a table that shows 1.00 never reads as a miss.
 */
export function missedBar(ratio: Figures, bar: Figures): string[] {
  const at2 = (x: number): number => Math.round(x * 100) / 100;
  const missed: string[] = [];
  if (at2(ratio.p50) > bar.p50) missed.push("p50");
  if (at2(ratio.runs) > bar.runs) missed.push("runs");
  if (at2(ratio.perHour) < bar.perHour) missed.push("merged/h");
  return missed;
}

/** Geometric mean of each figure (a run's figures swing ~10% with the flake draw; ratios stay comparable). */
export function geomean(all: readonly Figures[]): Figures {
  const g = (pick: (f: Figures) => number): number =>
    Math.exp(all.reduce((sum, f) => sum + Math.log(Math.max(pick(f), 1e-9)), 0) / all.length);
  return { p50: g((f) => f.p50), runs: g((f) => f.runs), perHour: g((f) => f.perHour) };
}

/**
 * How much of the line ahead of a batch its main run is built on: the PRs of its base over the PRs of every batch
 * in line before it (one lane: 1). Lanes can spare runs only where this is well below 1 (a failure restarts only
 * what is built on it). Undefined when nothing was ahead.
 */
export function coupling(basePrs: number, prsAhead: number): number | undefined {
  return prsAhead === 0 ? undefined : Math.min(1, basePrs / prsAhead);
}
