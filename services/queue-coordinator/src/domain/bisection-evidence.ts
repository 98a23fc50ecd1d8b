import type { Bisection, BisectionResult } from "./bisection-state.js";

/**
 * What a search's runs say beyond pass or fail, read from the tests each failed (issue 26): whose failure a run
 * shares, which failures are likely flakes, which segments need no run of their own (see bisection.ts).
 */

/**
 * What the witness says of the failed batch (see Bisection.witness): a pass clears it (its failure was a flake). For a
 * lone PR, a failure of a test its own run failed names it (a bad PR fails its tests wherever it runs, and the PRs
 * stacked on it were not in its run); a batch's failure names no member. Anything else says nothing: the search
 * goes on once the witness has ended.
 */
export function witnessVerdict(b: Bisection): BisectionResult | undefined {
  const result = witnessResult(b);
  if (result?.outcome !== "FAILED") return result;
  // A batch's witness failing its tests again names no member: the search goes on as before.
  if (b.members.length > 1) return undefined;
  const initial = Object.values(b.results).find((r) => r.initial === true)?.failedTests ?? [];
  return result.failedTests?.some((t) => initial.includes(t)) === true ? result : undefined;
}

/** The witness's result (see Bisection.witness), once it has one. */
export function witnessResult(b: Bisection): BisectionResult | undefined {
  return b.witness === undefined ? undefined : b.results[b.witness];
}

/**
 * A lone PR's run that failed none of the tests failed by the runs that held it and more did not fail their way: a
 * bad PR fails its tests wherever it runs, so this was most likely a flake, and a flake alone must never fail a good
 * PR. Such a failure is set aside once and the PR runs again; a second failure counts whatever its tests.
 */
export function setAsideUnlikeFailures(b: Bisection): Bisection {
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
export function holdsCulprit(b: Bisection, segment: readonly number[], good: readonly number[]): boolean {
  return failedAround(b, segment).some((r) => onlyOpenPart(r, segment, good));
}

const onlyOpenPart = (r: { prs: number[] }, segment: readonly number[], good: readonly number[]): boolean =>
  r.prs.every((n) => segment.includes(n) || good.includes(n));

/**
 * Failed runs of the search's own that held the segment and more, and that failed a test a run holding them and
 * more failed too: two runs failing the same test is a real failure, not a flake (a bad PR fails its tests wherever
 * it runs), the evidence a witness gives a lone PR (see witnessVerdict). A pair's own failure counts as well when
 * its witness failed one of its tests (see pairConfirmedByWitness).
 */
function confirmedAround(b: Bisection, segment: readonly number[]): (BisectionResult & { prs: number[] })[] {
  return failedAround(b, segment).filter((r) =>
    r.initial === true
      ? pairConfirmedByWitness(b, r)
      : failedAround(b, r.prs).some((a) => a.failedTests?.some((t) => r.failedTests?.includes(t)) === true),
  );
}

/**
 * A failed batch of two whose witness (witness.ts) failed a test the batch's run failed: the same evidence as a
 * pair's own run failing the batch's test, so its first PR is tested alone and names the second if it passes. Only a
 * pair: in a bigger batch every lone segment would wait for the ones ahead of it, and the search would run one PR
 * at a time (measured: heavy-1's p50 +16%, docs/planner-history.md, twentieth pass).
 */
function pairConfirmedByWitness(b: Bisection, initial: BisectionResult & { prs: number[] }): boolean {
  const witness = witnessResult(b);
  if (initial.prs.length !== 2 || witness?.outcome !== "FAILED") return false;
  return witness.failedTests?.some((t) => initial.failedTests?.includes(t)) === true;
}

/**
 * A lone PR is the culprit, with no run of its own, when a confirmed failure (see confirmedAround) held it and PRs
 * found good since on runs of their own: the failure is in it. A pair that failed the batch's tests so needs one
 * run, its first PR's, instead of both PRs' (see waitsForSibling), and names the second as soon as a run would.
 */
export function namedByConfirmedFailure(
  b: Bisection,
  segment: readonly number[],
  good: readonly number[],
): (BisectionResult & { prs: number[] }) | undefined {
  if (segment.length !== 1) return undefined;
  return confirmedAround(b, segment).find((r) => onlyOpenPart(r, segment, good));
}

/**
 * The run that explains every failure around a segment never tested: inside each failed run that held it, parts
 * outside it failed every test that run failed, on runs of their own. Nothing then points at the segment, so it
 * goes back into the line untested (where a bad PR of its own would still fail its run) instead of spending a run
 * here. Null: some failure is not explained, or its tests are not known.
 */
export function explainedBy(
  b: Bisection,
  segment: readonly number[],
): { runId: string; prs: number[] } | null {
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
 * runs beside the first half's halves. A lone PR waits only where a pass of the first half names it (see
 * namedByConfirmedFailure): otherwise its verdict needs a run of its own anyway.
 */
export function waitsForSibling(
  b: Bisection,
  segment: readonly number[],
  open: ReadonlySet<number>,
): boolean {
  const around = segment.length < 2 ? confirmedAround(b, segment) : failedAround(b, segment);
  return around.some((r) => {
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
