import type { PrState } from "./pull-request.js";
import type { TestRun } from "./test-run.js";

/**
 * What the queue has seen of its own PRs: the share of recent PRs that ended FAILED rather than
 * MERGED (cancelled ones say nothing). A running mean over the first WINDOW conclusions, then an
 * exponential moving average over about the last WINDOW, so the queue follows a change of load
 * within a hundred PRs or so, and a burst of failures does not swing it.
 */
export interface ObservedFailures {
  /** Estimated chance that a PR's own change fails its tests, 0..1. */
  rate: number;
  /** Conclusions seen, up to WINDOW (how much the estimate can be trusted). */
  samples: number;
  /**
   * The share of recent probes (see probes.ts) whose answer came in time to be used, rather
   * than after their batch was re-formed or had already started. Absent: none seen yet.
   */
  probesUsed?: number;
}

export const WINDOW = 100;
const PRIOR_WEIGHT = 10;

/** Before anything is seen: a guess that neither batches recklessly nor probes needlessly. */
export const NO_OBSERVATIONS: Readonly<ObservedFailures> = Object.freeze({ rate: 0.05, samples: 0 });

export function observeConclusion(seen: Readonly<ObservedFailures>, to: PrState): ObservedFailures {
  if (to !== "MERGED" && to !== "FAILED") return seen;
  const samples = Math.min(WINDOW, seen.samples + 1);
  const x = to === "FAILED" ? 1 : 0;
  // The prior weighs as PRIOR_WEIGHT conclusions, so the first few do not swing the estimate.
  return { ...seen, rate: seen.rate + (x - seen.rate) / (samples + PRIOR_WEIGHT), samples };
}

/** Probes keep being worth their run only while most of them answer in time. */
const PROBE_WINDOW = 20;

export function observeProbe(seen: Readonly<ObservedFailures>, used: boolean): ObservedFailures {
  const before = seen.probesUsed ?? 1;
  return { ...seen, probesUsed: before + ((used ? 1 : 0) - before) / PROBE_WINDOW };
}

/** A probe is the one kind of bisection run that is not for a combination of a bisection. */
export function isProbeRun(run: Readonly<TestRun>): boolean {
  return run.kind === "bisection" && run.comboKey === null;
}

/** The chance that a batch of `size` PRs holds at least one failing change. */
export function batchFailureChance(seen: Readonly<ObservedFailures>, size: number): number {
  return 1 - (1 - seen.rate) ** size;
}
