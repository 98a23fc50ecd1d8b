import type { SubmittedPullRequest } from "../api/api-types.js";

/** The human `status`: each state change of the submission, oldest first, as `--json` has them in `history`. */
export function timelineLines(pr: Pick<SubmittedPullRequest, "history">): string[] {
  if (pr.history.length === 0) return [];
  return [
    "  timeline:",
    ...pr.history.map(
      (step) =>
        `    ${step.at}  ${step.from ? `${step.from} → ` : ""}${step.to}` +
        (step.reason ? `  ${step.reason}` : "") +
        (step.testRunId ? `  (run ${step.testRunId})` : ""),
    ),
  ];
}
