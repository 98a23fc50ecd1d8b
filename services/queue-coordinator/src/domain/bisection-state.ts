import type { PassOrFail } from "@mainline/contract";
import type { FailureReason } from "./reasons.js";

export interface BisectionResult {
  outcome: PassOrFail;
  runId: string;
  reason: FailureReason | null;
  /**
   * The PRs the run tested (its segment; the whole batch for the failure that began the bisection). Another
   * segment answered by this result is a run saved (rule 10). Absent in results stored before it was kept.
   */
  prs?: number[];
  /**
   * The batch's own failure that began the bisection. It may be a flake, so it can split a
   * segment but never alone make a PR the culprit: that verdict needs a run of its own.
   */
  initial?: boolean;
  /**
   * The ids of the tests the run failed, when it gave them all (issue 26). They tell whose failure a run shares:
   * a part that failed on every test its whole failed on explains that failure (see bisection-evidence.ts,
   * explainedBy).
   */
  failedTests?: string[];
}

/**
 * The search for the culprits of a failed batch (rules 8-10). Every combination tested is a
 * prefix-closed set: the confirmed-good members ahead plus one segment, so a passing
 * combination is a valid base for everything it contains and can merge at once. Knowledge is
 * kept per combination: "AB passed" and "ABCD failed" make "CD on top of AB" a known failure.
 */
export interface Bisection {
  /** The failed batch's members in queue order when the bisection began. */
  members: number[];
  /** Segments still to examine, in order; each is contiguous in `members`. */
  segments: number[][];
  /** Members confirmed good (passing combination), in order. */
  good: number[];
  culprits: number[];
  results: Record<string, BisectionResult>;
  /** Result key -> id of the run in flight for it. */
  running: Record<string, string>;
  /** Rule 10 cache; off only in strategy comparisons. */
  reuse: boolean;
  /**
   * The merge counter when the bisection began, and how many good groups it has sent to merge
   * since: any other merge moved the target under its runs.
   */
  mergesAtStart?: number;
  groupsMerged?: number;
  /**
   * In parallel lanes: a PR of its lane (sharing a target with a member) was sent to merge since the
   * bisection began, so its runs no longer sit on the target as it will be. Merges of other lanes
   * do not count: they change nothing the runs tested.
   */
  laneMoved?: boolean;
  /**
   * Its good groups go back into the line whatever happens (set when members it vouched for went
   * back at its start, see pending-failure.ts): merging one from its run would put it ahead of them.
   */
  requeueOnly?: boolean;
  /**
   * Its segments are tested each on the target alone, all at once (set once its good groups can only go back
   * into the line, see bisection-runner.ts): stacking a segment on the ones ahead only lets a culprit ahead
   * fail it too, which tells nothing, when nothing merges from these runs anyway.
   */
  independent?: boolean;
  /**
   * Keys of lone PRs' failures set aside once as unlike the failure searched (see bisection-evidence.ts,
   * setAsideUnlikeFailures).
   */
  rerun?: string[];
  /** The key of the run built on the failed batch, kept going when it failed (see witness.ts). */
  witness?: string;
}
