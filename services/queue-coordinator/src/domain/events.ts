import type { ImpactedTargets } from "./impacted-targets.js";
import type { Priority } from "./priority.js";
import type { PullRequestFacts } from "./pull-request.js";
import type { QueueSettingsPatch } from "./queue-settings.js";
import type { FailedTestsKnowledge, RunTestFailures } from "./test-knowledge.js";
import type { TestRunOutcome } from "./test-run.js";

/**
 * Inputs to the planner, already parsed at the edge (api/command-parser.ts: parsePriority, parseImpactedTargets,
 * parseSettingsPatch):
 * the planner decides, it does not validate again. Each is applied at a time given alongside it. Results that
 * refer to runs or merges the planner no longer tracks are ignored, so redelivery changes nothing.
 */
export type QueueEvent =
  | {
      type: "PR_SUBMITTED";
      pr: number;
      /** Default medium. */
      priority?: Priority;
      noBatch?: boolean;
      /** Facts already known to the shell; otherwise the PR waits in NOT_READY for them. */
      facts?: PullRequestFacts;
      /** Targets uploaded before submission, if any. */
      impactedTargets?: ImpactedTargets;
      /** The PRs it is stacked on, bottom first, as the shell resolved them (issue 28, see stack.ts). */
      stack?: StackSubmission;
    }
  | { type: "PR_CANCELLED"; pr: number }
  | { type: "PR_RESTART_REQUESTED"; pr: number }
  /** `by` is who asked, for the PR's timeline. */
  | { type: "PR_PRIORITY_CHANGED"; pr: number; priority: Priority; by?: string }
  | { type: "IMPACTED_TARGETS_SET"; pr: number; targets: ImpactedTargets }
  | { type: "PR_FACTS_UPDATED"; pr: number; facts: PullRequestFacts }
  | { type: "SETTINGS_UPDATED"; patch: QueueSettingsPatch }
  | {
      type: "TEST_RUN_FINISHED";
      runId: string;
      outcome: TestRunOutcome;
      conflictingPr?: number;
      /** The run's failed tests (issue 26); absent: the run gave no test results, decided as before. */
      tests?: RunTestFailures;
      /** What flaky-analytics knows of those tests; absent or null: it could not say, decided as before. */
      knowledge?: FailedTestsKnowledge | null;
      /** Why knowledge is null although tests failed (flaky-analytics down or slow): the history says so. */
      knowledgeUnavailable?: string;
    }
  /** `mergedPrs`: for TARGET_MOVED, the PRs of the merge that did land (a merge through GitHub refused midway). */
  | { type: "MERGE_FINISHED"; mergeId: string; outcome: "MERGED" | "TARGET_MOVED"; mergedPrs?: number[] }
  | { type: "TARGET_BRANCH_MOVED" }
  /** A run of the target's own CI passed this test (flaky-analytics saw it): a hold for it ends (target-hold.ts). */
  | { type: "TARGET_TEST_PASSED"; testId: string }
  | { type: "TIME_PASSED" };

export interface StackSubmission {
  /** Bottom first; the last one is the PR the submitted one sits on. */
  below: StackedPullRequest[];
  /** Submit those not in the queue yet in the same step (default on); off, the PR waits for them. */
  include: boolean;
}

export interface StackedPullRequest {
  pr: number;
  facts?: PullRequestFacts;
  impactedTargets?: ImpactedTargets;
}

export type QueueEventType = QueueEvent["type"];
