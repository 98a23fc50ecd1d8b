/**
 * FORMING: collecting PRs. QUEUED: composition fixed, waiting for a test slot. TESTING: main run in flight.
 * PASSED: waiting to merge. PENDING_FAILURE: failed, waiting for predecessors and PFD successors. BISECTING:
 * searching culprits. MERGING: a merge containing it is in flight.
 */
export const BATCH_STATUSES = [
  "FORMING",
  "QUEUED",
  "TESTING",
  "PASSED",
  "PENDING_FAILURE",
  "BISECTING",
  "MERGING",
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export function isBatchStatus(word: string): word is BatchStatus {
  return (BATCH_STATUSES as readonly string[]).includes(word);
}
