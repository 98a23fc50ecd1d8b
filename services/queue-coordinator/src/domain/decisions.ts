import type { PassOrFail } from "@mainline/contract";
import type { PrState, PullRequestEntry } from "./pull-request.js";
import type { QueueMode } from "./queue-settings.js";
import type { QueueState } from "./queue-state.js";
import type { TransitionReason } from "./reasons.js";
import type { RunFailureDecision } from "./run-failure-decision.js";
import type { TargetRecovery } from "./target-broken.js";
import type { FailedTest } from "./test-knowledge.js";
import type { TestRunKind } from "./test-run.js";

/** Work for the shell to carry out (jobs on the work-queue stream). */
export type Decision =
  | {
      type: "START_TEST_RUN";
      runId: string;
      kind: TestRunKind;
      batchId: string;
      lane: string;
      /** PRs under test, in order. */
      prs: number[];
      /** PRs ahead in the lane, applied first (the base), in order. */
      dependentPrs: number[];
    }
  | { type: "CANCEL_TEST_RUN"; runId: string; reason: TransitionReason }
  | {
      type: "MERGE";
      mergeId: string;
      /** Each lands as its own commit, in this order. */
      prs: number[];
      runId: string;
      optimistic: boolean;
    };

/** Facts for the lifecycle stream (webhooks, metrics). */
export type Notice =
  | {
      type: "PR_STATE_CHANGED";
      pr: number;
      entryId: string;
      from: PrState | null;
      to: PrState;
      reason: TransitionReason;
      at: number;
      runId: string | null;
      batched: boolean;
      isBisection: boolean;
      /** The entry as it left the queue, for terminal states (the state no longer holds it). */
      finalEntry: PullRequestEntry | null;
      /** The history entry's detail, when it has one. */
      detail?: string;
    }
  | {
      type: "PR_PRIORITY_CHANGED";
      pr: number;
      entryId: string;
      from: number;
      to: number;
      by: string | null;
      at: number;
    }
  | { type: "BATCH_PENDING_FAILURE"; batchId: string; prs: number[]; runId: string; at: number }
  | { type: "BATCH_MERGED"; mergeId: string; prs: number[]; at: number }
  /** A bisection segment settled by an earlier run's result, without a run of its own (rule 10). */
  | {
      type: "BISECTION_RESULT_REUSED";
      runId: string;
      prs: number[];
      outcome: PassOrFail;
      at: number;
    }
  | { type: "QUEUE_STATE_CHANGED"; from: QueueState; to: QueueState; at: number }
  /** A failed run decided by its tests (issue 26): counted as passed, retried in place, or the target's fault. */
  | {
      type: "RUN_FAILURE_DECIDED";
      runId: string;
      prs: number[];
      decision: Exclude<RunFailureDecision, { kind: "FAIL_AS_TODAY" }>;
      at: number;
    }
  /** New runs on the target wait: a test fails on the target itself (target-hold.ts). */
  | { type: "TARGET_BROKEN"; test: FailedTest; since: number; at: number; runId: string; reason: string }
  | { type: "TARGET_RECOVERED"; test: FailedTest; since: number; why: TargetRecovery; at: number }
  | { type: "QUEUE_MODE_CHANGED"; from: QueueMode; to: QueueMode; at: number };
