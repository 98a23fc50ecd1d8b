import { PullRequestState, type Queue } from "@mainline/proto/queue";
import { estimateMerge, median } from "../domain/merge-estimate.js";

export interface PullRequestEstimate {
  /** 1-based among the PRs that count (not NOT_READY), in queue order. */
  queuePosition: number;
  estimatedMergeAt?: string;
  medianRunSeconds?: number;
}

/**
 * The estimate of every PR of a queue that counts, by PR number, from the queue as GetQueue gives it (its order,
 * settings and the durations of its recent runs, read from the coordinator's stored runs); `only`: just that PR.
 */
export function queueEstimates(queue: Queue, now: number, only?: number): Map<number, PullRequestEstimate> {
  const counted = queue.enqueuedPullRequests.filter((p) => p.state !== PullRequestState.NOT_READY);
  const runMs = median(queue.recentRunDurationsMs);
  const estimates = new Map<number, PullRequestEstimate>();
  counted.forEach((pr, index) => {
    // Status polls ask for one PR: the others' figures would be computed for nothing.
    if (only !== undefined && pr.prNumber !== only) return;
    const estimate = estimateMerge({
      position: index + 1,
      testing: pr.state === PullRequestState.TESTING || pr.state === PullRequestState.TESTS_PASSED,
      stateSince: pr.stateChangedAt?.getTime() ?? now,
      concurrency: queue.concurrency,
      batchSize: queue.batch ? queue.batchingMinSize : 1,
      recentRunDurationsMs: queue.recentRunDurationsMs,
      now,
    });
    estimates.set(pr.prNumber, {
      queuePosition: index + 1,
      ...(estimate.estimatedMergeAt !== undefined && runMs !== undefined
        ? {
            estimatedMergeAt: new Date(estimate.estimatedMergeAt).toISOString(),
            medianRunSeconds: Math.round(runMs / 100) / 10,
          }
        : {}),
    });
  });
  return estimates;
}
