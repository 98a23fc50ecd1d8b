import { runSimulation } from "./simulate.js";
import { summarize, type SimulationSummary } from "./summary.js";
import type { Workload } from "./workload.js";

/** Keeping up: merging at least this share of the arrival rate. */
export const KEEPS_UP = 0.95;

export interface Comparison {
  workload: string;
  arrivalsPerHour: number;
  rows: { label: string; keepsUp: boolean; summary: SimulationSummary }[];
  /** The row that keeps up with the fewest CI runs (then the fewest slots), if any does. */
  cheapest: string | null;
}

const CONCURRENCY = [2, 4, 8];
const BATCH_SIZES = [1, 4, 8];

/**
 * The merged-per-hour figure of a queue that keeps up exactly: every good PR merges one test
 * run after it arrives, so the last one merges a test (and a merge) after the last arrival. Compared
 * with the plain arrival rate, this keeps a finite workload's tail from counting as falling behind.
 */
export function arrivalRate(workload: Workload): number {
  const last = Math.max(0, ...workload.prs.map((p) => p.arrivesAt));
  const meanTest = workload.prs.reduce((sum, p) => sum + p.testMinutes, 0) / Math.max(1, workload.prs.length);
  const hours = (last + (meanTest + workload.mergeMinutes) * 60_000) / 3_600_000;
  // Bad and cancelled PRs never merge, however good the queue.
  const mergeable = workload.prs.filter((p) => !p.bad && p.cancelAt === null).length;
  return mergeable / hours;
}

/**
 * Runs one workload under several concurrency and batch-size settings (the rest as given), so
 * a user learns which their load needs before trying it on real CI.
 */
export function compareSettings(workload: Workload, base: Record<string, unknown>): Comparison {
  const arrivals = arrivalRate(workload);
  const rows: Comparison["rows"] = [];
  for (const concurrency of CONCURRENCY) {
    for (const size of BATCH_SIZES) {
      const settings =
        size === 1
          ? { ...base, concurrency, batch: false }
          : { ...base, concurrency, batch: true, batchingMinSize: size };
      const summary = summarize(workload.name, settings, runSimulation({ settings, workload }));
      const label = `concurrency ${concurrency}, ${size === 1 ? "no batching" : `batches of ${size}`}`;
      rows.push({ label, keepsUp: hundredths(summary.mergedPerHour) >= keepsUpBar(arrivals), summary });
    }
  }
  const fit = rows.filter((r) => r.keepsUp);
  fit.sort(
    (a, b) =>
      a.summary.runs.total - b.summary.runs.total ||
      Number(a.summary.settings.concurrency) - Number(b.summary.settings.concurrency),
  );
  return { workload: workload.name, arrivalsPerHour: arrivals, rows, cheapest: fit[0]?.label ?? null };
}

/**
 * The table and its verdict. Rates are printed to two decimals, and the verdict prints the bar itself (not
 * "95% of" a rounded rate), so a row's "no" never sits beside a merged/h that reads as equal to the bar.
 */
export function describeComparison(c: Comparison): string[] {
  const head = `${"settings".padEnd(34)} ${"merged/h".padStart(8)} ${"p50 min".padStart(8)} ${"p90 min".padStart(8)} ${"CI runs".padStart(8)} ${"runs/PR".padStart(8)}  keeps up`;
  const lines = c.rows.map(({ label, keepsUp, summary: s }) =>
    [
      label.padEnd(34),
      s.mergedPerHour.toFixed(2).padStart(8),
      s.timeToMergeMinutes.p50.toFixed(0).padStart(8),
      s.timeToMergeMinutes.p90.toFixed(0).padStart(8),
      String(s.runs.total).padStart(8),
      s.runsPerMergedPr.toFixed(2).padStart(8),
      keepsUp ? " yes" : " no",
    ].join(" "),
  );
  const bar = keepsUpBar(c.arrivalsPerHour);
  const rule =
    `keeping up: merged/h of at least ${bar.toFixed(2)}, ${KEEPS_UP * 100}% of the ` +
    `${c.arrivalsPerHour.toFixed(2)} good PRs arriving per hour`;
  const verdict =
    c.cheapest === null
      ? [
          `None of these settings keeps up (${rule}).`,
          "The grid tries 2, 4 and 8 slots and batches of 4 and 8: try more without --compare, " +
            "e.g. --set concurrency=16 --set batchingMinSize=16.",
        ]
      : [`Cheapest that keeps up (fewest CI runs): ${c.cheapest}; ${rule}.`];
  return [`workload ${c.workload}`, head, ...lines, ...verdict];
}

const hundredths = (n: number) => Math.round(n * 100) / 100;

/**
 * The merged/h a setting must reach to keep up, in hundredths as printed; rows are judged on their printed
 * merged/h too, so the table never says "no" beside a figure that reads as the bar.
 */
function keepsUpBar(arrivalsPerHour: number): number {
  return Math.ceil(KEEPS_UP * arrivalsPerHour * 100 - 1e-9) / 100;
}
