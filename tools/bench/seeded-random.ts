/**
 * A deterministic pseudo-random sequence in [0, 1) (a 32-bit linear congruential generator), so two runs of a bench
 * measure the same workload.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}
