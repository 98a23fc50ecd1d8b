/**
 * When a queued PR should merge, from where it stands and how long the queue's recent runs took. A deliberate
 * simplification of the planner: the PRs ahead are tested `concurrency` runs at a time, `batchSize` PRs per
 * run, each run taking the median recent duration; a PR under test merges when its run should finish.
 * Failures and bisections ahead make it late, never early, so the figure is a best case and says so.
 */
export interface MergeEstimateInput {
  /** 1-based, among the PRs that count (not NOT_READY), in queue order. */
  position: number;
  testing: boolean;
  /** When the PR's current state began, ms since the epoch. */
  stateSince: number;
  concurrency: number;
  batchSize: number;
  /** Durations of the queue's recent main runs, ms; empty when none is known. */
  recentRunDurationsMs: readonly number[];
  now: number;
}

export interface MergeEstimate {
  /** Undefined when no run duration is known yet. */
  estimatedMergeAt: number | undefined;
  runDurationMs: number | undefined;
}

export function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function estimateMerge(input: MergeEstimateInput): MergeEstimate {
  const duration = median(input.recentRunDurationsMs);
  if (duration === undefined) return { estimatedMergeAt: undefined, runDurationMs: undefined };
  if (input.testing)
    return {
      estimatedMergeAt: Math.max(input.now, input.stateSince + duration),
      runDurationMs: duration,
    };
  const perRound = Math.max(1, input.concurrency) * Math.max(1, input.batchSize);
  const roundsAhead = Math.floor((Math.max(1, input.position) - 1) / perRound);
  return { estimatedMergeAt: input.now + (roundsAhead + 1) * duration, runDurationMs: duration };
}
