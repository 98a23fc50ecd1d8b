import type { SubmittedPullRequest } from "@mainline/proto/queue";

/**
 * What a NOT_READY pull request waits for, as one sentence that names the fix. The readiness booleans of
 * compat-notes cannot say it: a PR no `pull_request` event was seen for also has `doesBaseBranchMatch: false`,
 * which read as "wrong base branch" and sent users looking for the wrong problem.
 */
export function notReadyReason(pr: SubmittedPullRequest, targetBranch: string): string | undefined {
  const reason = pr.readiness?.notReadyReason;
  switch (reason) {
    case undefined:
    case "":
      return undefined;
    case "AWAITING_FACTS":
      return (
        `no pull_request event seen for #${pr.prNumber}: send one with \`mainline pr event\` ` +
        "(POST /v1/code-host/pull-request-events)"
      );
    case "BASE_BRANCH_MISMATCH":
      return (
        `its base branch is ${pr.prBaseBranch}, not the queue's ${targetBranch}: ` +
        "retarget it, or submit it to that branch's queue"
      );
    case "AWAITING_IMPACTED_TARGETS":
      return (
        `no impacted targets for its head ${pr.prSha.slice(0, 12)} (parallel mode): set them with ` +
        "`mainline targets set` (POST /v1/setImpactedTargets)"
      );
    case "AWAITING_STACK_BELOW": {
      const below = pr.stack?.below.at(-1);
      return (
        `it is stacked on #${below ?? "?"}, which is not in the queue: submit the top of the stack with ` +
        "includeStack (the default), or submit #" +
        `${below ?? "?"} first`
      );
    }
    default:
      return `waiting: ${reason}`;
  }
}
