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
}

export interface NeededCombination {
  key: string;
  /** The segment under test. */
  prs: number[];
  /** Confirmed or speculated-good members ahead of it. */
  base: number[];
}

export interface BisectionProgress {
  bisection: Bisection;
  culprits: { pr: number; reason: FailureReason; runId: string }[];
  confirmed: { prs: number[]; base: number[]; runId: string }[];
  /** Segments settled by the result of a run made for another segment (the same combination). */
  reused: { prs: number[]; runId: string; outcome: BisectionResult["outcome"] }[];
  /** Combinations worth having in flight, most useful first. */
  needed: NeededCombination[];
  finished: boolean;
}

export function halves(segment: readonly number[]): number[][] {
  const mid = Math.ceil(segment.length / 2);
  return [segment.slice(0, mid), segment.slice(mid)];
}

/** Without reuse the key names the segment too, so only the run made for it counts. */
export function resultKey(reuse: boolean, base: readonly number[], segment: readonly number[]): string {
  const combo = [...base, ...segment].join(",");
  return reuse ? combo : `${combo}|${segment.join(",")}`;
}

export function startBisection(
  members: readonly number[],
  failedRunId: string,
  reason: FailureReason,
  reuse: boolean,
): Bisection {
  return {
    members: [...members],
    // One member: the failure cannot name it alone (see decisive), so it is tested once more.
    segments: members.length > 1 ? halves(members) : [[...members]],
    good: [],
    culprits: [],
    results: {
      [resultKey(reuse, [], members)]: {
        outcome: "FAILED",
        runId: failedRunId,
        reason,
        prs: [...members],
        initial: true,
      },
    },
    running: {},
    reuse,
  };
}

/** A result that settles a segment: the initial failure cannot by itself name a single culprit. */
function decisive(
  result: BisectionResult | undefined,
  segment: readonly number[],
): BisectionResult | undefined {
  return result?.initial === true && segment.length === 1 ? undefined : result;
}

export function recordBisectionResult(b: Bisection, key: string, result: BisectionResult): Bisection {
  const { [key]: _done, ...running } = b.running;
  return { ...b, running, results: { ...b.results, [key]: result } };
}

/**
 * Commits what is known for certain (good segments, culprits, splits of failed segments), then
 * walks the rest assuming unknown segments pass, to list the combinations worth testing next.
 */
export function advanceBisection(b: Bisection, cap: number): BisectionProgress {
  const segments = b.segments.map((s) => [...s]);
  const good = [...b.good];
  const culprits = [...b.culprits];
  const progress: BisectionProgress = {
    bisection: b,
    culprits: [],
    confirmed: [],
    reused: [],
    needed: [],
    finished: false,
  };

  for (;;) {
    const segment = segments[0];
    if (segment === undefined) break;
    const result = decisive(b.results[resultKey(b.reuse, good, segment)], segment);
    if (result === undefined) break;
    if (result.prs !== undefined && result.prs.join(",") !== segment.join(",")) {
      progress.reused.push({ prs: [...segment], runId: result.runId, outcome: result.outcome });
    }
    if (result.outcome === "PASSED") {
      progress.confirmed.push({ prs: segment, base: [...good], runId: result.runId });
      good.push(...segment);
      segments.shift();
    } else if (segment.length === 1) {
      const pr = segment[0] as number;
      culprits.push(pr);
      progress.culprits.push({ pr, reason: result.reason ?? "TESTS_FAILED", runId: result.runId });
      segments.shift();
    } else {
      segments.splice(0, 1, ...halves(segment));
    }
  }

  const speculative = segments.map((s) => [...s]);
  const assumedGood = [...good];
  for (let i = 0; i < speculative.length && progress.needed.length < cap;) {
    const segment = speculative[i] as number[];
    const key = resultKey(b.reuse, assumedGood, segment);
    // The initial failure is re-run only once everything ahead of the segment is known good.
    const result = i === 0 ? decisive(b.results[key], segment) : b.results[key];
    if (result === undefined) {
      progress.needed.push({ key, prs: segment, base: [...assumedGood] });
      assumedGood.push(...segment);
      i++;
    } else if (result.outcome === "PASSED") {
      assumedGood.push(...segment);
      i++;
    } else if (segment.length === 1) {
      i++;
    } else {
      speculative.splice(i, 1, ...halves(segment));
    }
  }

  progress.bisection = { ...b, segments, good, culprits };
  progress.finished = segments.length === 0;
  return progress;
}
