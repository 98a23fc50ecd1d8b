import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { SimulationSummary } from "./summary.js";

/** A `simulate --compare` input breaks a rule; `field` names the option (e.g. `concurrency`). */
export class CompareOptionError extends InvalidArgumentError {}

export type CompareMode = "SINGLE" | "PARALLEL";
export const COMPARE_MODES: readonly CompareMode[] = ["SINGLE", "PARALLEL"];

/** The settings searched: every concurrency by every batch size (1: no batching) by every mode. */
export interface CompareGrid {
  concurrency: number[];
  batchSizes: number[];
  modes: CompareMode[];
}

export const DEFAULT_COMPARE_GRID: Readonly<CompareGrid> = Object.freeze({
  concurrency: [1, 2, 4, 8, 16],
  batchSizes: [1, 2, 4, 8],
  modes: [...COMPARE_MODES],
});

/** Bounds of a search, so one command cannot run for hours: values, list lengths, simulated PRs. */
export const COMPARE_LIMITS = Object.freeze({
  concurrency: [1, 64] as const,
  batchSize: [1, 64] as const,
  listLength: 8,
  points: 64,
  /** Grid points x PRs of the workload: about two minutes on one busy core. */
  simulatedPrs: 40_000,
  maxP50Minutes: [1, 10_080] as const,
  /** Draws of the flakes each setting is judged over (`--flake-draws`). */
  flakeDraws: [1, 10] as const,
});

/** What "keeps up" means for one workload, stated so that the output can print it. */
export interface KeepUpRule {
  /** The share of the good PRs' arrival rate a setting must merge per hour. */
  share: number;
  arrivalsPerHour: number;
  /** share x arrivalsPerHour, rounded up to the hundredth as printed. */
  minMergedPerHour: number;
  /** The median PR must merge within this many minutes of arriving. */
  maxP50Minutes: number;
}

/** Keeping up: merging at least this share of the arrival rate. */
export const KEEPS_UP = 0.95;

/** The p50 bound when none is given: four of the workload's median test runs. */
export function defaultMaxP50(testMinutes: readonly number[]): number {
  const sorted = [...testMinutes].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 1;
  return Math.min(COMPARE_LIMITS.maxP50Minutes[1], Math.ceil(4 * median));
}

export function keepUpRule(arrivalsPerHour: number, maxP50Minutes: number): KeepUpRule {
  return {
    share: KEEPS_UP,
    arrivalsPerHour,
    minMergedPerHour: Math.ceil(KEEPS_UP * arrivalsPerHour * 100 - 1e-9) / 100,
    maxP50Minutes,
  };
}

const hundredths = (n: number): number => Math.round(n * 100) / 100;

/**
 * Why a setting does not keep up ([] when it does). Rates are judged as printed (two decimals), so a
 * row never reads "no" beside a merged/h that looks equal to the bar.
 */
export function fallsBehind(s: SimulationSummary, rule: KeepUpRule): string[] {
  const why: string[] = [];
  if (hundredths(s.mergedPerHour) < rule.minMergedPerHour) {
    why.push(`merged/h ${s.mergedPerHour.toFixed(2)} < ${rule.minMergedPerHour.toFixed(2)}`);
  }
  if (s.timeToMergeMinutes.p50 > rule.maxP50Minutes) {
    why.push(`p50 ${s.timeToMergeMinutes.p50.toFixed(0)} > ${rule.maxP50Minutes} min`);
  }
  if (s.stuck > 0) why.push(`${s.stuck} PRs stuck`);
  if (s.badMerged > 0) why.push(`${s.badMerged} bad PRs merged`);
  return why;
}

/** One grid point's place in the order of cost. */
export interface Candidate {
  concurrency: number;
  batchSize: number;
  mode: CompareMode;
  runs: number;
}

/**
 * Cheapest first: fewest CI runs, then fewest slots, then the larger batch (less waiting on an idle
 * queue is not worth a run, but equal runs with fewer batches is less to watch), then one lane.
 */
export function byCost(a: Candidate, b: Candidate): number {
  return (
    a.runs - b.runs ||
    a.concurrency - b.concurrency ||
    b.batchSize - a.batchSize ||
    COMPARE_MODES.indexOf(a.mode) - COMPARE_MODES.indexOf(b.mode)
  );
}

/** The cheapest of the candidates that keep up, or null. */
export function pickCheapest<T extends Candidate>(fit: readonly T[]): T | null {
  return [...fit].sort(byCost)[0] ?? null;
}

function checkList<T>(field: string, values: readonly T[], one: (value: T) => boolean, says: string): T[] {
  if (values.length === 0 || values.length > COMPARE_LIMITS.listLength) {
    throw new CompareOptionError(field, `must list 1 to ${COMPARE_LIMITS.listLength} values`);
  }
  const bad = values.find((v) => !one(v));
  if (bad !== undefined) throw new CompareOptionError(field, `${String(bad)}: each must be ${says}`);
  if (new Set(values).size !== values.length) throw new CompareOptionError(field, "must not repeat a value");
  return [...values];
}

const inRange =
  ([min, max]: readonly [number, number]) =>
  (n: number): boolean =>
    Number.isInteger(n) && n >= min && n <= max;

/**
 * Checks a grid against COMPARE_LIMITS for a workload of `prs` PRs, each setting simulated `draws` times; the first
 * broken rule throws.
 */
export function checkGrid(grid: CompareGrid, prs: number, draws = 1): CompareGrid {
  const [cMin, cMax] = COMPARE_LIMITS.concurrency;
  const [bMin, bMax] = COMPARE_LIMITS.batchSize;
  const checked: CompareGrid = {
    concurrency: checkList(
      "concurrency",
      grid.concurrency,
      inRange(COMPARE_LIMITS.concurrency),
      `an integer in ${cMin}..${cMax}`,
    ),
    batchSizes: checkList(
      "batchSizes",
      grid.batchSizes,
      inRange(COMPARE_LIMITS.batchSize),
      `an integer in ${bMin}..${bMax}`,
    ),
    modes: checkList(
      "modes",
      grid.modes,
      (m) => COMPARE_MODES.includes(m),
      `one of ${COMPARE_MODES.join(", ")}`,
    ),
  };
  const points = checked.concurrency.length * checked.batchSizes.length * checked.modes.length;
  if (points > COMPARE_LIMITS.points) {
    throw new CompareOptionError("grid", `${points} settings; at most ${COMPARE_LIMITS.points}`);
  }
  const simulated = points * prs * draws;
  if (simulated > COMPARE_LIMITS.simulatedPrs) {
    const times = draws === 1 ? "" : ` x ${draws} flake draws`;
    throw new CompareOptionError(
      "grid",
      `${points} settings x ${prs} PRs${times} = ${simulated} simulated PRs; at most ${COMPARE_LIMITS.simulatedPrs} (search fewer values)`,
    );
  }
  return checked;
}

export function checkFlakeDraws(value: number): number {
  const [min, max] = COMPARE_LIMITS.flakeDraws;
  if (!inRange(COMPARE_LIMITS.flakeDraws)(value)) {
    throw new CompareOptionError("flakeDraws", `must be a whole number in ${min}..${max}`);
  }
  return value;
}

export function checkMaxP50(value: number): number {
  const [min, max] = COMPARE_LIMITS.maxP50Minutes;
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new CompareOptionError("maxP50Minutes", `must be a number of minutes in ${min}..${max}`);
  }
  return value;
}
