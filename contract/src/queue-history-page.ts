/**
 * The bounds of one page of a queue's history (listFinishedPullRequests): the gateway refuses a request outside
 * them with a 400, the queue-coordinator with INVALID_ARGUMENT, both from these numbers.
 */
export const QUEUE_HISTORY_PAGE = {
  /** PRs per page. */
  maxLimit: 100,
  defaultLimit: 20,
  /** Deep pages cost a skip over every entry before them; the history is for recent PRs. */
  maxOffset: 10_000,
  /** A PR number, a branch name (at most 255 bytes) or an author login. */
  maxSearchLength: 255,
} as const;

/** The states a PR can leave its queue in, the history's filter. */
export const FINISHED_STATES = ["MERGED", "FAILED", "CANCELLED"] as const;

export type FinishedState = (typeof FINISHED_STATES)[number];
