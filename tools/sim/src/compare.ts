import { parseQueueSettings } from "@mainline/queue-coordinator/api/command-parser";
import {
  checkFlakeDraws,
  checkGrid,
  checkMaxP50,
  DEFAULT_COMPARE_GRID,
  defaultMaxP50,
  fallsBehind,
  keepUpRule,
  pickCheapest,
  type CompareGrid,
  type CompareMode,
  type KeepUpRule,
} from "./compare-grid.js";
import { runPlainQueue, type PlainQueueSettings } from "./plain-queue.js";
import { runSimulation, type SimulationReport } from "./simulate.js";
import { meanOfDraws, summarize, type SimulationSummary } from "./summary.js";
import type { Workload } from "./workload.js";

export interface CompareRow {
  label: string;
  mode: CompareMode;
  concurrency: number;
  /** 1: no batching. */
  batchSize: number;
  keepsUp: boolean;
  /** Why it does not keep up (empty when it does). */
  behind: string[];
  /** Of the flake draws, how many it kept up in; it keeps up only if it kept up in every one. */
  keptUpIn: number;
  /** Over more than one draw, the draws' means (see meanOfDraws). */
  summary: SimulationSummary;
}

/** A figure of the chosen settings against the plain queue's on the same workload. */
export interface Gain {
  plain: number;
  chosen: number;
  /** plain / chosen for p50 and runs (how many times fewer), chosen / plain for merged per hour; null over 0. */
  times: number | null;
}

export interface PlainBaseline {
  /** What the plain queue was run with: the workload's own settings. */
  settings: PlainQueueSettings;
  summary: SimulationSummary;
  /** null when nothing keeps up. */
  beatenBy: { p50Minutes: Gain; ciRuns: Gain; mergedPerHour: Gain } | null;
}

export interface Comparison {
  workload: string;
  arrivalsPerHour: number;
  rule: KeepUpRule;
  /** The grid as searched; PARALLEL left out when no PR names impacted targets (it would be one lane). */
  searched: CompareGrid & { points: number; note: string | null };
  /** The flake seeds every setting (and the plain queue) was simulated with: the workload's seed and the ones after it. */
  flakeSeeds: number[];
  rows: CompareRow[];
  /** The label of the row that keeps up at the least cost, if any does. */
  cheapest: string | null;
  plain: PlainBaseline;
}

export interface CompareOptions {
  grid?: Partial<CompareGrid>;
  maxP50Minutes?: number;
  /**
   * Judge each setting over this many draws of the flakes (1 by default): one draw can move a setting's p50 by
   * a third, enough to flip its verdict.
   */
  flakeDraws?: number;
}

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

export function rowLabel(mode: CompareMode, concurrency: number, batchSize: number): string {
  return `${mode} concurrency ${concurrency}, ${batchSize === 1 ? "no batching" : `batches of ${batchSize}`}`;
}

/**
 * Runs one workload under every setting of a bounded grid (the rest of `base` as given), names the
 * cheapest that keeps up (fewest CI runs, then fewest slots), and holds it against the plain
 * speculative queue at the workload's own settings, so a user learns what to set before trying it on
 * real CI. Only the simulator's entry points are used: the planner under test may change freely.
 */
export function compareSettings(
  workload: Workload,
  base: Record<string, unknown>,
  options: CompareOptions = {},
): Comparison {
  const hasTargets = workload.prs.some((p) => p.targets === "ALL" || p.targets.length > 0);
  const asked = { ...DEFAULT_COMPARE_GRID, ...options.grid };
  const dropParallel = options.grid?.modes === undefined && !hasTargets;
  const draws = checkFlakeDraws(options.flakeDraws ?? 1);
  const grid = checkGrid(
    { ...asked, modes: dropParallel ? asked.modes.filter((m) => m !== "PARALLEL") : asked.modes },
    workload.prs.length,
    draws,
  );
  const flakeSeeds = Array.from({ length: draws }, (_, i) => workload.seed + i);
  const rule = keepUpRule(
    arrivalRate(workload),
    checkMaxP50(options.maxP50Minutes ?? defaultMaxP50(workload.prs.map((p) => p.testMinutes))),
  );
  const rows: CompareRow[] = [];
  for (const mode of grid.modes) {
    for (const concurrency of grid.concurrency) {
      for (const batchSize of grid.batchSizes) {
        const settings = {
          ...base,
          mode,
          concurrency,
          ...(batchSize === 1 ? { batch: false } : { batch: true, batchingMinSize: batchSize }),
        };
        const each = eachDraw(workload, flakeSeeds, workload.name, settings, (w) =>
          runSimulation({ settings, workload: w }),
        );
        const summary = meanOfDraws(each);
        const keptUpIn = each.filter((s) => fallsBehind(s, rule).length === 0).length;
        const behind = fallsBehind(summary, rule);
        if (behind.length === 0 && keptUpIn < draws)
          behind.push(`kept up in ${keptUpIn} of ${draws} flake draws`);
        const label = rowLabel(mode, concurrency, batchSize);
        rows.push({
          label,
          mode,
          concurrency,
          batchSize,
          keepsUp: behind.length === 0,
          behind,
          keptUpIn,
          summary,
        });
      }
    }
  }
  const chosen = pickCheapest(
    rows.filter((r) => r.keepsUp).map((r) => ({ ...r, runs: r.summary.runs.total })),
  );
  return {
    workload: workload.name,
    arrivalsPerHour: rule.arrivalsPerHour,
    rule,
    searched: {
      ...grid,
      points: rows.length,
      note: dropParallel ? "PARALLEL not searched: no PR names impacted targets" : null,
    },
    flakeSeeds,
    rows,
    cheapest: chosen?.label ?? null,
    plain: plainBaseline(workload, flakeSeeds, base, chosen?.summary ?? null),
  };
}

/** One setting's summary on each draw of the flakes: the workload as it is but for the seed of its flakes. */
function eachDraw(
  workload: Workload,
  flakeSeeds: readonly number[],
  name: string,
  settings: Record<string, unknown>,
  run: (w: Workload) => SimulationReport,
): SimulationSummary[] {
  return flakeSeeds.map((seed) => summarize(name, settings, run({ ...workload, seed })));
}

/** The plain queue ("reach") at the workload's own settings, and what the chosen settings gain on it. */
function plainBaseline(
  workload: Workload,
  flakeSeeds: readonly number[],
  base: Record<string, unknown>,
  chosen: SimulationSummary | null,
): PlainBaseline {
  const own = parseQueueSettings(base);
  const settings: PlainQueueSettings = {
    concurrency: own.concurrency,
    batchSize: own.batch ? own.batchingMinSize : 1,
    batchingMaxWaitTimeMinutes: own.batchingMaxWaitTimeMinutes,
  };
  const summary = meanOfDraws(
    eachDraw(workload, flakeSeeds, `${workload.name} (plain queue)`, { ...settings }, (w) =>
      runPlainQueue(w, settings),
    ),
  );
  const gain = (plain: number, mine: number, higherIsBetter: boolean): Gain => {
    const [over, under] = higherIsBetter ? [mine, plain] : [plain, mine];
    return { plain, chosen: mine, times: under === 0 ? null : Number((over / under).toFixed(2)) };
  };
  return {
    settings,
    summary,
    beatenBy:
      chosen === null
        ? null
        : {
            p50Minutes: gain(summary.timeToMergeMinutes.p50, chosen.timeToMergeMinutes.p50, false),
            ciRuns: gain(summary.runs.total, chosen.runs.total, false),
            mergedPerHour: gain(summary.mergedPerHour, chosen.mergedPerHour, true),
          },
  };
}
