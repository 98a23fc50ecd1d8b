/**
 * The mean change from `before` to `after`, pair by pair (the same workload and seed under two planners), as the mean
 * of the logs of the ratios: a 5% gain and a 5% loss weigh alike, and one chaotic seed moving 30% cannot outweigh a
 * steady 2% on the rest as it would in a ratio of means. `error` is the standard error of that mean. A zero (no merge
 * at all) is floored so that the log stays finite.
 */
export function pairedChange(
  before: readonly number[],
  after: readonly number[],
): { mean: number; error: number; pairs: number } {
  if (before.length !== after.length) throw new Error("pairedChange: before and after must pair up");
  const logs = before.map((b, i) => Math.log(Math.max(after[i] as number, 1e-9) / Math.max(b, 1e-9)));
  const pairs = logs.length;
  if (pairs === 0) return { mean: 0, error: 0, pairs };
  const mean = logs.reduce((s, x) => s + x, 0) / pairs;
  const variance = pairs < 2 ? 0 : logs.reduce((s, x) => s + (x - mean) ** 2, 0) / (pairs - 1);
  return { mean, error: Math.sqrt(variance / pairs), pairs };
}

/** As paired.ts prints it: "-3.6% (0.8)", a percentage of the mean log change and its standard error. */
export function showChange(c: { mean: number; error: number }): string {
  const percent = 100 * c.mean;
  return `${percent >= 0 ? "+" : ""}${percent.toFixed(1)}% (${(100 * c.error).toFixed(1)})`;
}
