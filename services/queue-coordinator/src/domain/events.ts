import type { PullRequestFacts } from "./pull-request.js";
import type { TestRunOutcome } from "./test-run.js";

/**
 * Inputs to the planner. Each is applied at a time given alongside it. Results that refer to
 * runs or merges the planner no longer tracks are ignored, so redelivery changes nothing.
 */
export type QueueEvent =
  | {
      type: "PR_SUBMITTED";
      pr: number;
      /** Name ("urgent"...) or 0..255; default medium. */
      priority?: unknown;
      noBatch?: boolean;
      /** Facts already known to the shell; otherwise the PR waits in NOT_READY for them. */
      facts?: PullRequestFacts;
      /** Targets uploaded before submission, if any. */
      impactedTargets?: { sha: string; targets: string[] | "ALL" };
    }
  | { type: "PR_CANCELLED"; pr: number }
  | { type: "PR_RESTART_REQUESTED"; pr: number }
  /** Name ("urgent"...) or 0..255; `by` is who asked, for the PR's timeline. */
  | { type: "PR_PRIORITY_CHANGED"; pr: number; priority: unknown; by?: string }
  | { type: "IMPACTED_TARGETS_SET"; pr: number; sha: string; targets: unknown }
  | { type: "PR_FACTS_UPDATED"; pr: number; facts: PullRequestFacts }
  | { type: "SETTINGS_UPDATED"; patch: Readonly<Record<string, unknown>> }
  | { type: "TEST_RUN_FINISHED"; runId: string; outcome: TestRunOutcome; conflictingPr?: number }
  | { type: "MERGE_FINISHED"; mergeId: string; outcome: "MERGED" | "TARGET_MOVED" }
  | { type: "TARGET_BRANCH_MOVED" }
  | { type: "TIME_PASSED" };

export type QueueEventType = QueueEvent["type"];
