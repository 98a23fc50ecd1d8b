import type { PullRequestState, SubmittedPullRequest } from "../api/api-types.js";

/** States a PR never leaves: waiting stops there. */
const TERMINAL: ReadonlySet<PullRequestState> = new Set(["MERGED", "FAILED", "CANCELLED"]);

export function isTerminal(state: PullRequestState): boolean {
  return TERMINAL.has(state);
}

/** The reason behind FAILED or CANCELLED, or what a waiting PR still needs. */
export function stateDetail(pr: SubmittedPullRequest): string {
  if (pr.state === "FAILED") return pr.failureReason ?? "";
  if (pr.state === "CANCELLED") return pr.cancellationReason ?? "";
  if (pr.state === "NOT_READY") {
    const missing: string[] = [];
    if (!pr.readiness.doesBaseBranchMatch) missing.push("base branch differs from the queue's");
    if (pr.readiness.requiresImpactedTargets && !pr.readiness.hasImpactedTargets)
      missing.push("impacted targets");
    if (pr.readiness.gitHubMergeability === "NOT_MERGEABLE") missing.push("not mergeable");
    return missing.length > 0 ? `waiting for: ${missing.join(", ")}` : "";
  }
  return "";
}
