import { WINDOW, type ObservedFailures } from "./observed-failures.js";

/**
 * ADAPTIVE batching: the size of the next batch follows the load instead of staying fixed.
 *
 * The failure rate. In one lane up to `concurrency` batches are tested stacked on each other,
 * and a failing batch costs every run stacked on it. With a chance q that a PR fails, a batch of
 * b passes with (1 - q)^b, so a cycle of stacked runs merges about
 *   b * sum_{k=1..concurrency} (1 - q)^(b k)
 * PRs: big batches while failures are rare, small ones once most big batches would fail (where
 * a fixed size keeps throwing whole stacks away). The size that merges the most is taken, up to
 * the ceiling (`batchingMinSize`, the target size); on a tie the larger, which costs fewer runs.
 *
 * The backlog. While test slots are free and fewer PRs wait than they could take at that size,
 * the waiting PRs are spread over the free slots rather than packed into one batch: a smaller
 * batch fails less often and the slots would idle anyway. While no slot is free, batches keep
 * filling (a batch closed small then would stay small once the backlog has grown).
 *
 * Until the queue has seen a few PRs end, the ceiling is used (the fixed behaviour).
 */
export function adaptiveBatchSize(
  ceiling: number,
  concurrency: number,
  observed: Readonly<ObservedFailures> | undefined,
  waiting: number,
  freeSlots: number,
): number {
  if (observed === undefined || observed.samples < MIN_SAMPLES) return ceiling;
  const pass = 1 - observed.rate;
  let best = 1;
  let bestMerged = -1;
  for (let size = 1; size <= ceiling; size++) {
    const batchPasses = pass ** size;
    let stacked = 0;
    let all = 1;
    for (let k = 0; k < concurrency; k++) {
      all *= batchPasses;
      stacked += all;
    }
    const merged = size * stacked;
    if (merged >= bestMerged) {
      best = size;
      bestMerged = merged;
    }
  }
  if (freeSlots <= 0) return best;
  return Math.max(1, Math.min(best, Math.ceil(waiting / freeSlots)));
}

/** Conclusions needed before the observed rate steers the size (a quarter of its window). */
const MIN_SAMPLES = Math.ceil(WINDOW / 4);
