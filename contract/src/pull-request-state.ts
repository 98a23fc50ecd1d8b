/** A submitted PR's state, written UPPERCASE as the spec writes it (compat-notes "General"). */
export const PR_STATES = [
  "NOT_READY",
  "PENDING",
  "TESTING",
  "TESTS_PASSED",
  "MERGED",
  "FAILED",
  "CANCELLED",
  "PENDING_FAILURE",
] as const;
export type PullRequestState = (typeof PR_STATES)[number];

/** States a PR never leaves. */
export const TERMINAL_PR_STATES = [
  "MERGED",
  "FAILED",
  "CANCELLED",
] as const satisfies readonly PullRequestState[];
export type TerminalPullRequestState = (typeof TERMINAL_PR_STATES)[number];
export type LivePullRequestState = Exclude<PullRequestState, TerminalPullRequestState>;

export function isTerminalPrState(state: PullRequestState): state is TerminalPullRequestState {
  return (TERMINAL_PR_STATES as readonly PullRequestState[]).includes(state);
}
