import { normalizeFailureMessage } from "./normalize-failure-message.js";

/** Failures of one test that normalise to the same summary. */
export interface FailureGroup {
  key: string;
  summary: string;
  count: number;
  /** Epoch ms of the latest occurrence. */
  lastOccurrence: number;
}

export const DEFAULT_MAX_FAILURE_GROUPS = 50;

/**
 * Counts one failure into a test's groups (a bounded list stored with the test). When a new kind
 * of failure would exceed the bound, the rarest, oldest group makes room, never the new one.
 */
export function recordFailure(
  groups: readonly FailureGroup[],
  message: string | undefined,
  at: number,
  maxGroups = DEFAULT_MAX_FAILURE_GROUPS,
): FailureGroup[] {
  const { groupKey, summary } = normalizeFailureMessage(message);
  const existing = groups.find((group) => group.key === groupKey);
  if (existing !== undefined) {
    return groups.map((group) =>
      group === existing
        ? { ...group, count: group.count + 1, lastOccurrence: Math.max(group.lastOccurrence, at) }
        : group,
    );
  }
  const kept = [...groups];
  while (kept.length >= maxGroups) {
    const evicted = kept.reduce((weakest, group) => (isWeaker(group, weakest) ? group : weakest));
    kept.splice(kept.indexOf(evicted), 1);
  }
  return [...kept, { key: groupKey, summary, count: 1, lastOccurrence: at }];
}

/** The top groups: most occurrences first, then most recent, then by summary for a stable order. */
export function mostCommonFailures(groups: readonly FailureGroup[], limit = 5): FailureGroup[] {
  return [...groups].sort(compareByCommonness).slice(0, Math.max(0, limit));
}

function compareByCommonness(a: FailureGroup, b: FailureGroup): number {
  return b.count - a.count || b.lastOccurrence - a.lastOccurrence || a.summary.localeCompare(b.summary);
}

function isWeaker(a: FailureGroup, b: FailureGroup): boolean {
  return compareByCommonness(a, b) > 0;
}
