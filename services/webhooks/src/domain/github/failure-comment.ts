/** What the PR's author reads when the queue removes a PR for a failure: why, where to look, what to do. */
export interface FailureFacts {
  readonly targetBranch: string;
  readonly failureReason: string | undefined;
  readonly failureDetailsUrl: string | undefined;
  readonly pageUrl: string;
}

const WHY: Record<string, string> = {
  TESTS_FAILED: "its tests failed on top of the queue",
  BUILD_FAILED: "the build of the queue's test branch failed",
  TIMED_OUT: "testing took longer than the queue's testing timeout",
  MERGE_CONFLICT: "it does not apply cleanly on top of the queue",
};

const WHAT_TO_DO: Record<string, string> = {
  TESTS_FAILED:
    "Fix the failing tests (the run's details say which), push, then comment `/svc merge` to queue it again.",
  BUILD_FAILED: "Fix the build, push, then comment `/svc merge` to queue it again.",
  TIMED_OUT:
    "If the run hung, fix what made it slow and push; if it was a passing hiccup, comment `/svc merge` to queue it again.",
  MERGE_CONFLICT:
    "Merge or rebase the target branch into this pull request, resolve the conflicts, push, then comment `/svc merge`.",
};

export function failureComment(facts: FailureFacts): string {
  const reason = facts.failureReason ?? "FAILED";
  const lines = [
    `**Mainline removed this pull request from the merge queue of \`${facts.targetBranch}\`**: ${
      WHY[reason] ?? `it failed (${reason})`
    }.`,
    "",
  ];
  if (facts.failureDetailsUrl) lines.push(`Details of the failed run: ${facts.failureDetailsUrl}`);
  lines.push(
    `Its history in the queue: ${facts.pageUrl}`,
    "",
    WHAT_TO_DO[reason] ?? "Comment `/svc merge` to queue it again.",
  );
  return lines.join("\n");
}
