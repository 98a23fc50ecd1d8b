import type { Bisection, BisectionResult } from "./bisection-state.js";
import type { FailureReason } from "./reasons.js";
import {
  explainedBy,
  holdsCulprit,
  namedByConfirmedFailure,
  setAsideUnlikeFailures,
  waitsForSibling,
  witnessVerdict,
} from "./bisection-evidence.js";

export type { Bisection, BisectionResult } from "./bisection-state.js";
export { witnessResult } from "./bisection-evidence.js";

export interface NeededCombination {
  key: string;
  /** The segment under test. */
  prs: number[];
  /** Confirmed or speculated-good members ahead of it. */
  base: number[];
}

export interface BisectionProgress {
  bisection: Bisection;
  /** `detail`: why, when no run of the culprit's own named it (see namedByConfirmedFailure). */
  culprits: { pr: number; reason: FailureReason; runId: string; detail?: string }[];
  confirmed: { prs: number[]; base: number[]; runId: string }[];
  /** Segments settled by the result of a run made for another segment (the same combination). */
  reused: { prs: number[]; runId: string; outcome: BisectionResult["outcome"] }[];
  /**
   * Segments sent back into the line untested (independent search): every failure that held them is explained by
   * a part outside them that failed the same tests on a run of its own. `runId` and `by`: that run and its PRs.
   */
  released: { prs: number[]; runId: string; by: number[] }[];
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
  failedTests?: readonly string[],
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
        ...(failedTests !== undefined && failedTests.length > 0 ? { failedTests: [...failedTests] } : {}),
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
export function advanceBisection(searched: Bisection, cap: number): BisectionProgress {
  const b = setAsideUnlikeFailures(searched);
  // A batch's witness (see witness.ts); a lone PR's is read segment by segment (settleIndependent).
  const batchWitness = b.members.length > 1 ? b.witness : undefined;
  const verdict = batchWitness === undefined ? undefined : witnessVerdict(b);
  // Its pass clears every member still open at once: the batch's failure was a flake.
  const cleared = verdict?.outcome === "PASSED" && b.segments.length > 0 ? verdict : undefined;
  const segments = cleared !== undefined ? [b.segments.flat()] : b.segments.map((s) => [...s]);
  const good = [...b.good];
  const culprits = [...b.culprits];
  const progress: BisectionProgress = {
    bisection: b,
    culprits: [],
    confirmed: [],
    reused: [],
    released: [],
    needed: [],
    finished: false,
  };

  const settling: Settling = { segments, good, culprits, progress };
  if (cleared !== undefined) {
    settleSegment(settling, 0, cleared, good);
  } else if (
    batchWitness !== undefined &&
    b.running[batchWitness] !== undefined &&
    segments[0] !== undefined
  ) {
    // The witness in flight may clear the whole batch: the search waits for it before spending runs.
    progress.needed.push({ key: batchWitness, prs: segments[0], base: [] });
  } else if (b.independent === true) settleIndependent(b, settling, cap);
  else settleStacked(b, settling, cap);
  progress.bisection = { ...b, segments, good, culprits };
  progress.finished = segments.length === 0;
  return progress;
}

/** What one settling pass of a search changes. */
interface Settling {
  segments: number[][];
  good: number[];
  culprits: number[];
  progress: BisectionProgress;
}

/**
 * Applies a result to the segment at `index`, tested on `base`: a pass makes a good group, a lone PR's failure a
 * culprit, and a failure of more splits the segment in halves.
 */
function settleSegment(
  { segments, good, culprits, progress }: Settling,
  index: number,
  result: BisectionResult,
  base: readonly number[],
): BisectionResult["outcome"] {
  const segment = segments[index] as number[];
  if (result.prs !== undefined && result.prs.join(",") !== segment.join(",")) {
    progress.reused.push({ prs: [...segment], runId: result.runId, outcome: result.outcome });
  }
  if (result.outcome === "PASSED") {
    progress.confirmed.push({ prs: segment, base: [...base], runId: result.runId });
    good.push(...segment);
    segments.splice(index, 1);
  } else if (segment.length === 1) {
    const pr = segment[0] as number;
    culprits.push(pr);
    progress.culprits.push({ pr, reason: result.reason ?? "TESTS_FAILED", runId: result.runId });
    segments.splice(index, 1);
  } else {
    segments.splice(index, 1, ...halves(segment));
  }
  return result.outcome;
}

/** The stacked search: each combination is the confirmed-good members ahead plus one segment. */
function settleStacked(b: Bisection, settling: Settling, cap: number): void {
  const { segments, good, progress } = settling;
  for (;;) {
    const segment = segments[0];
    if (segment === undefined) break;
    const result = decisive(b.results[resultKey(b.reuse, good, segment)], segment);
    if (result === undefined) break;
    settleSegment(settling, 0, result, good);
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
}

/**
 * The independent search: every segment with a result settles, wherever it stands (a pass is a good group, a
 * lone failure a culprit, a failed segment splits), a segment whose failures are all explained elsewhere goes
 * back into the line untested, and every segment still open is needed, on the target alone.
 */
function settleIndependent(b: Bisection, settling: Settling, cap: number): void {
  const { segments, good, progress } = settling;
  for (let i = 0; i < segments.length;) {
    const segment = segments[i] as number[];
    const key = resultKey(b.reuse, [], segment);
    const own = decisive(b.results[key], segment) ?? witnessVerdict(b);
    if (own === undefined) {
      // A run of its own already in flight answers it sooner than its halves would.
      if (segment.length > 1 && b.running[key] === undefined && holdsCulprit(b, segment, good)) {
        // Known to hold a culprit, so it splits without a run of its own; its halves get their own.
        segments.splice(i, 1, ...halves(segment));
        continue;
      }
      const named = namedByConfirmedFailure(b, segment, good);
      if (named !== undefined) {
        const pr = segment[0] as number;
        const others = named.prs
          .filter((n) => n !== pr)
          .map((n) => `#${n}`)
          .join(", ");
        // The batch's own run, confirmed by its witness (a pair), or a run of the search's confirmed by the batch's.
        const confirmedBy = named.initial === true ? "the run built on it failed too" : "the batch failed";
        const detail = `its run with ${others} failed a test ${confirmedBy}, and ${others} passed on ${named.prs.length > 2 ? "their" : "its"} own`;
        settling.culprits.push(pr);
        progress.culprits.push({ pr, reason: named.reason ?? "TESTS_FAILED", runId: named.runId, detail });
        segments.splice(i, 1);
        continue;
      }
      const by = explainedBy(b, segment);
      if (by !== null) {
        progress.released.push({ prs: segment, runId: by.runId, by: [...by.prs] });
        segments.splice(i, 1);
        continue;
      }
      i++;
      continue;
    }
    // After a pass, a segment waiting on this one may split now (see holdsCulprit).
    if (settleSegment(settling, i, own, []) === "PASSED") i = 0;
  }
  // The witness in flight answers sooner than the search's own runs would: listed, it is kept, never started.
  if (b.witness !== undefined && b.running[b.witness] !== undefined && segments[0] !== undefined) {
    progress.needed.push({ key: b.witness, prs: segments[0], base: [] });
    return;
  }
  const open = new Set(segments.flat());
  for (const segment of segments) {
    if (progress.needed.length >= cap) break;
    if (waitsForSibling(b, segment, open)) continue;
    progress.needed.push({ key: resultKey(b.reuse, [], segment), prs: segment, base: [] });
  }
}
