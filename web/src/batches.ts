/** What the queue page needs of a queued PR to group it by batch and lane (getQueue's extra fields). */
export interface Batched {
  prNumber: number;
  testRunId?: string;
  batchId?: string;
  batchStatus?: string;
  lane?: string;
}

export interface PlannedBatch<T extends Batched> {
  batchId: string;
  status: string;
  lane: string | undefined;
  prs: T[];
}

/** Batches planned and not under test yet: the ones forming or queued for a slot. */
const PLANNED = new Set(["FORMING", "QUEUED"]);

/**
 * The waiting batches in queue order, each with its PRs (a PR under test is never in one), and the other PRs not
 * under test: not ready or not batched yet, or in a batch past planning (a pending failure, a bisection, merging).
 */
export function waitingBatches<T extends Batched>(
  prs: readonly T[],
): { batches: PlannedBatch<T>[]; unbatched: T[] } {
  const batches = new Map<string, PlannedBatch<T>>();
  const unbatched: T[] = [];
  for (const pr of prs) {
    if (pr.testRunId) continue;
    if (pr.batchId && pr.batchStatus && PLANNED.has(pr.batchStatus)) {
      const batch = batches.get(pr.batchId) ?? {
        batchId: pr.batchId,
        status: pr.batchStatus,
        lane: pr.lane,
        prs: [],
      };
      batch.prs.push(pr);
      batches.set(pr.batchId, batch);
    } else unbatched.push(pr);
  }
  return { batches: [...batches.values()], unbatched };
}

/** "Lane 1", "Lane 2"...: each lane the coordinator names, numbered in queue order of its first batch. */
export function laneLabels(prs: readonly Batched[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const pr of prs) if (pr.lane && !labels.has(pr.lane)) labels.set(pr.lane, `Lane ${labels.size + 1}`);
  return labels;
}
