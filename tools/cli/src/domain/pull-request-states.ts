import { isTerminalPrState } from "@mainline/contract";
import type { PullRequestState, SubmittedPullRequest } from "../api/api-types.js";

/** States a PR never leaves: waiting stops there. */
export const isTerminal = (state: PullRequestState): boolean => isTerminalPrState(state);

/** The reason behind FAILED or CANCELLED, or what a waiting PR still needs. */
export function stateDetail(pr: SubmittedPullRequest): string {
  if (pr.state === "FAILED") return pr.failureReason ?? "";
  if (pr.state === "CANCELLED") return pr.cancellationReason ?? "";
  // The service names what a NOT_READY PR waits for and how to provide it; the booleans alone would guess.
  if (pr.state === "NOT_READY") return pr.readiness.reason ?? "";
  return "";
}
