import type { PrState } from "./pull-request.js";

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
  return { rate: seen.rate + (x - seen.rate) / (samples + PRIOR_WEIGHT), samples };
}

/** The chance that a batch of `size` PRs holds at least one failing change. */
export function batchFailureChance(seen: Readonly<ObservedFailures>, size: number): number {
  return 1 - (1 - seen.rate) ** size;
}
