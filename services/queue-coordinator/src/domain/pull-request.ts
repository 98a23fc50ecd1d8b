import { isTerminalPrState, TERMINAL_PR_STATES, type PullRequestState } from "@mainline/contract";
import type { ImpactedTargets } from "./impacted-targets.js";
import type { Priority } from "./priority.js";
import type { TransitionReason } from "./reasons.js";

export type PrState = PullRequestState;

export { TERMINAL_PR_STATES, isTerminalPrState as isTerminal };

/** What the code host says about the PR (from pull_request events). */
export interface PullRequestFacts {
  headBranch: string;
  headSha: string;
  title: string;
  author: string;
  baseBranch: string;
  open: boolean;
  /**
   * The open PR whose head branch is this PR's base branch (issue 28, see stack.ts): resolved by the shell from
   * the repository's facts, absent when the PR is not stacked.
   */
  stackedOn?: number;
}

export interface Transition {
  at: number;
  from: PrState | null;
  to: PrState;
  reason: TransitionReason;
  runId: string | null;
  /** What the reason alone does not say ("passed; failures ignored: quarantined tests X, Y"); absent: nothing. */
  detail?: string;
}

/** A priority change of a queued PR, for its timeline. */
export interface PriorityChange {
  at: number;
  from: number;
  to: number;
  /** Who asked, when known. */
  by: string | null;
}

/** A PR submitted to a queue, from submission until it leaves (merged, failed, cancelled). */
export interface PullRequestEntry {
  number: number;
  /** Queue entry id (not the PR number); a resubmission gets a new one. */
  id: string;
  submittedAt: number;
  priority: Priority;
  noBatch: boolean;
  facts: PullRequestFacts | null;
  impactedTargets: ImpactedTargets | null;
  state: PrState;
  stateChangedAt: number;
  history: Transition[];
  /** When the PR last entered the queue order (became PENDING); null while NOT_READY. */
  enqueuedAt: number | null;
  batchId: string | null;
  /**
   * Set when the PR first starts testing in its current place: priority applies only before
   * that (only urgent PRs overtake it afterwards).
   */
  startedTesting: boolean;
  /** The merge in flight that contains this PR. */
  mergeId: string | null;
  /** Absent in entries stored before priorities could change. */
  priorityChanges?: PriorityChange[];
  /**
   * A bisection run passed with this PR and sent it back into the line to be tested again (see
   * requeueGoodGroup); when a batch holding it fails, the search looks at the others (see
   * pending-failure.ts). Forgotten when used or when the PR leaves the queue; absent when never set.
   */
  cleared?: boolean;
}

export type Readiness =
  | { ready: true }
  | {
      ready: false;
      reason:
        "AWAITING_FACTS" | "AWAITING_IMPACTED_TARGETS" | "BASE_BRANCH_MISMATCH" | "AWAITING_STACK_BELOW";
    };

/**
 * Whether the PR has started a test run since it last became ready (its history, newest first, reaches a TESTING
 * before the READY that admitted it): a PR a bisection sent back into line has, a new or re-pushed PR has not.
 */
export function testedSinceAdmitted(pr: Readonly<PullRequestEntry>): boolean {
  for (let i = pr.history.length - 1; i >= 0; i--) {
    const step = pr.history[i] as Transition;
    if (step.to === "TESTING") return true;
    if (step.reason === "READY") return false;
  }
  return false;
}

/** In parallel mode a PR waits until its targets are known for its current head sha. */
export function readinessOf(pr: PullRequestEntry, branch: string, requiresTargets: boolean): Readiness {
  if (pr.facts === null) return { ready: false, reason: "AWAITING_FACTS" };
  if (pr.facts.baseBranch !== branch) return { ready: false, reason: "BASE_BRANCH_MISMATCH" };
  if (requiresTargets && pr.impactedTargets?.sha !== pr.facts.headSha) {
    return { ready: false, reason: "AWAITING_IMPACTED_TARGETS" };
  }
  return { ready: true };
}
