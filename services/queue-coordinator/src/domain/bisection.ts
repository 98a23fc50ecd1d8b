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
   * a part that failed on every test its whole failed on explains that failure (see explainedBy).
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
  /** Keys of lone PRs' failures set aside once as unlike the failure searched (see setAsideUnlikeFailures). */
  rerun?: string[];
  /** A lone PR's search: the key of the run built on it, kept going when it failed (see ejection.ts). */
  witness?: string;
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

/**
 * What the witness says of a lone PR (see Bisection.witness): a pass clears it (its failure was a flake); a failure
 * of a test its own run failed names it (a bad PR fails its tests wherever it runs, and the PRs stacked on it were
 * not in its run). Anything else says nothing: the PR runs on its own, once the witness has ended.
 */
function witnessVerdict(b: Bisection): BisectionResult | undefined {
  const result = witnessResult(b);
  if (result?.outcome !== "FAILED") return result;
  const initial = Object.values(b.results).find((r) => r.initial === true)?.failedTests ?? [];
  return result.failedTests?.some((t) => initial.includes(t)) === true ? result : undefined;
}

/** The witness's result (see Bisection.witness), once it has one. */
export function witnessResult(b: Bisection): BisectionResult | undefined {
  return b.witness === undefined ? undefined : b.results[b.witness];
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
  const segments = b.segments.map((s) => [...s]);
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
  if (b.independent === true) settleIndependent(b, settling, cap);
  else settleStacked(b, settling, cap);
  progress.bisection = { ...b, segments, good, culprits };
  progress.finished = segments.length === 0;
  return progress;
}

/**
 * A lone PR's run that failed none of the tests failed by the runs that held it and more did not fail their way: a
 * bad PR fails its tests wherever it runs, so this was most likely a flake, and a flake alone must never fail a good
 * PR. Such a failure is set aside once and the PR runs again; a second failure counts whatever its tests.
 */
function setAsideUnlikeFailures(b: Bisection): Bisection {
  const open = new Set(b.segments.filter((s) => s.length === 1).map((s) => s[0] as number));
  let results = b.results;
  const rerun = [...(b.rerun ?? [])];
  for (const [key, r] of Object.entries(b.results)) {
    if (r.outcome !== "FAILED" || r.initial === true || r.failedTests === undefined || rerun.includes(key))
      continue;
    if (r.prs?.length !== 1 || !open.has(r.prs[0] as number)) continue;
    const around = failedAround(b, r.prs);
    if (around.length === 0 || around.some((a) => a.failedTests === undefined)) continue;
    if (around.some((a) => a.failedTests?.some((t) => r.failedTests?.includes(t)))) continue;
    const { [key]: _flake, ...rest } = results;
    results = rest;
    rerun.push(key);
  }
  return results === b.results ? b : { ...b, results, rerun };
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

/**
 * Failed runs that held the segment and more. The batch's own failure counts only with its failed tests: it may
 * be a flake, and only they tell whether a part's failure was the same one (see explainedBy).
 */
function failedAround(b: Bisection, segment: readonly number[]): (BisectionResult & { prs: number[] })[] {
  // A witness held PRs the batch never did: only witnessVerdict reads it.
  const witnessRun = witnessResult(b)?.runId;
  return Object.values(b.results).filter(
    (r): r is BisectionResult & { prs: number[] } =>
      r.outcome === "FAILED" &&
      r.runId !== witnessRun &&
      (r.initial !== true || r.failedTests !== undefined) &&
      r.prs !== undefined &&
      r.prs.length > segment.length &&
      segment.every((n) => r.prs?.includes(n)),
  );
}

/** Such a run whose other PRs were all found good since: the segment holds a culprit (a split, never a verdict). */
function holdsCulprit(b: Bisection, segment: readonly number[], good: readonly number[]): boolean {
  return failedAround(b, segment).some((r) => r.prs.every((n) => segment.includes(n) || good.includes(n)));
}

/**
 * The run that explains every failure around a segment never tested: inside each failed run that held it, parts
 * outside it failed every test that run failed, on runs of their own. Nothing then points at the segment, so it
 * goes back into the line untested (where a bad PR of its own would still fail its run) instead of spending a run
 * here. Null: some failure is not explained, or its tests are not known.
 */
function explainedBy(b: Bisection, segment: readonly number[]): { runId: string; prs: number[] } | null {
  const around = failedAround(b, segment);
  if (around.length === 0 || around.some((r) => r.failedTests === undefined)) return null;
  const outside = Object.values(b.results).filter(
    (r): r is BisectionResult & { prs: number[]; failedTests: string[] } =>
      r.outcome === "FAILED" &&
      r.initial !== true &&
      r.prs !== undefined &&
      r.failedTests !== undefined &&
      !r.prs.some((n) => segment.includes(n)),
  );
  let by: { runId: string; prs: number[] } | null = null;
  for (const r of around) {
    const inside = outside.filter((f) => f.prs.every((n) => r.prs.includes(n)));
    const covered = new Set(inside.flatMap((f) => f.failedTests));
    if (!(r.failedTests ?? []).every((t) => covered.has(t))) return null;
    by = inside[0] as BisectionResult & { prs: number[] };
  }
  return by;
}

/**
 * The second half of a segment that failed waits for the first half's run: if that passes, it splits without a
 * run (see holdsCulprit), and if it fails the same tests, it goes back untested (see explainedBy); otherwise it
 * runs beside the first half's halves. A lone PR never waits: its verdict needs a run of its own anyway.
 */
function waitsForSibling(b: Bisection, segment: readonly number[], open: ReadonlySet<number>): boolean {
  if (segment.length < 2) return false;
  return failedAround(b, segment).some((r) => {
    const ahead = r.prs.slice(0, r.prs.indexOf(segment[0] as number)).filter((n) => open.has(n));
    if (ahead.length === 0) return false;
    // Once the first half has failed on a run of its own, the second runs beside its halves.
    return !Object.values(b.results).some(
      (o) =>
        o.initial !== true &&
        o.prs !== undefined &&
        ahead.every((n) => o.prs?.includes(n)) &&
        !segment.some((n) => o.prs?.includes(n)),
    );
  });
}
