import type { PassOrFail, RunKind } from "@mainline/contract";
import type { FailureReason } from "./reasons.js";

export type TestRunKind = RunKind;
/** A run in the planner: running, or ended as the contract says a pass or a fail (other outcomes fail it). */
export type TestRunStatus = "RUNNING" | PassOrFail;

/**
 * One CI run of a projected branch: the target, then `base` (the dependent PRs ahead, in
 * order), then `prs` (the PRs under test). Kept in state only while its result can still matter.
 */
export interface TestRun {
  id: string;
  kind: TestRunKind;
  batchId: string;
  prs: number[];
  base: number[];
  lane: string;
  startedAt: number;
  status: TestRunStatus;
  finishedAt: number | null;
  failureReason: FailureReason | null;
  /** For bisection runs: the combination this run tests (see bisection.ts). */
  comboKey: string | null;
  /**
   * For bisection runs: something other than the run's own base was sent to merge since it started, or was
   * merging as it started (in parallel lanes, something of its lane), so it no longer tests what would land
   * (see merging.ts). Absent: not.
   */
  targetMoved?: boolean;
  /**
   * A main run built on a batch that failed, kept going as evidence of that batch's failure instead of being
   * cancelled (see witness.ts, Bisection.witness). Absent: not.
   */
  witness?: boolean;
  /** A witness's batch: the PRs it decides. Absent in witnesses stored before batches had them: a lone PR, its first. */
  witnessOf?: number[];
}

/**
 * BUILD_FAILED: the projected branch could not be built for a reason other than a conflict (a ref missing on
 * the remote, a remote git could not fetch): no test ran, so it must not read as failed tests.
 */
export type { RunOutcome as TestRunOutcome } from "@mainline/contract";

export function containsAny(run: TestRun, prs: ReadonlySet<number>): boolean {
  return run.prs.some((p) => prs.has(p)) || run.base.some((p) => prs.has(p));
}

/**
 * The PRs whose fate the run decides: a witness (witness.ts) only the PRs it witnesses, since the PRs
 * stacked on it restarted in runs of their own; any other run, the PRs it tests.
 */
export function prsDecidedBy(run: Readonly<TestRun>): readonly number[] {
  return run.witness === true ? (run.witnessOf ?? run.prs.slice(0, 1)) : run.prs;
}
