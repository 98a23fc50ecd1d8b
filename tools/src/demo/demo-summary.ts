import type { SubmittedPullRequest } from "@mainline/contract";
import { formatElapsed } from "@mainline/cli-src";
import type { DemoPullRequest } from "./demo-project.js";

export interface DemoSummary {
  merged: number[];
  failed: { number: number; reason: string }[];
  cancelled: number[];
  /** Test runs Mainline started (test branches it pushed): fewer than PRs when batching pays off. */
  ciRuns: number;
  wallMs: number;
  /** PRs whose outcome differs from the plan; empty when Mainline did what the demo expects. */
  surprises: string[];
}

export function summarize(
  plan: readonly DemoPullRequest[],
  finals: readonly SubmittedPullRequest[],
  ciRuns: number,
  wallMs: number,
): DemoSummary {
  // A PR can end in ways the plan has no name for (CANCELLED, another failure reason): those are strings.
  const outcome = (pr: SubmittedPullRequest): string =>
    pr.state === "MERGED" ? "MERGED" : pr.state === "FAILED" ? (pr.failureReason ?? "FAILED") : pr.state;
  const surprises: string[] = [];
  for (const planned of plan) {
    const final = finals.find((pr) => pr.prNumber === planned.number);
    const got = final ? outcome(final) : "missing";
    if (got !== planned.planned)
      surprises.push(`#${planned.number} ended ${got}, planned ${planned.planned}`);
  }
  return {
    merged: finals.filter((pr) => pr.state === "MERGED").map((pr) => pr.prNumber),
    failed: finals
      .filter((pr) => pr.state === "FAILED")
      .map((pr) => ({ number: pr.prNumber, reason: pr.failureReason ?? "unknown" })),
    cancelled: finals.filter((pr) => pr.state === "CANCELLED").map((pr) => pr.prNumber),
    ciRuns,
    wallMs,
    surprises,
  };
}

export function formatSummary(summary: DemoSummary, prCount: number): string[] {
  const list = (numbers: readonly number[]) => numbers.map((n) => `#${n}`).join(" ") || "-";
  return [
    "Summary",
    `  merged     ${summary.merged.length}  ${list(summary.merged)}`,
    `  failed     ${summary.failed.length}  ${summary.failed.map((f) => `#${f.number} ${f.reason}`).join(", ") || "-"}`,
    ...(summary.cancelled.length > 0
      ? [`  cancelled  ${summary.cancelled.length}  ${list(summary.cancelled)}`]
      : []),
    `  CI runs    ${summary.ciRuns}  test runs for ${prCount} pull requests (a batch tests several PRs in one run;` +
      " a failed batch is bisected, which costs runs)",
    `  wall time  ${formatElapsed(summary.wallMs)}  from the first submit to the last PR finished`,
    summary.surprises.length === 0
      ? "  every PR ended as planned"
      : `  NOT as planned: ${summary.surprises.join("; ")}`,
  ];
}
