import { isCurrentProbe, type Batch } from "./batch.js";
import type { Bisection } from "./bisection.js";
import type { Draft } from "./draft.js";
import { targetsOverlap } from "./impacted-targets.js";
import type { LaneGraph } from "./lanes.js";
import { batchRestartedTogether, insertAt, requeueIndex } from "./queue-order.js";
import { dropRunsOf, restartBatch } from "./restarts.js";
import type { TestRun } from "./test-run.js";
import { setPrState } from "./transitions.js";
import { keepWitness } from "./witness.js";

/**
 * Ejection: a failed batch steps out of the line. Its failure is resolved aside (wait for what is
 * ahead, then bisect), while the batches behind it restart on a base without it and go on merging:
 * one failure no longer stalls the whole queue for the length of a bisection, nor makes every run
 * behind it fail in turn. With no pending-failure depth it steps aside once everything ahead of it
 * passed; with a depth D it first waits for its first D successors, since a run of theirs that
 * contains it passing rescues it (rules 13 and 14; see rescueWindowClosed).
 */
export function failuresStepAsideAtOnce(d: Draft): boolean {
  return d.state.settings.pendingFailureDepth === 0;
}

const ASIDE: ReadonlySet<Batch["status"]> = new Set(["PENDING_FAILURE", "BISECTING"]);

/** The batch is being resolved aside: nothing behind it depends on it. */
export function isOffline(d: Draft, batchId: string): boolean {
  const batch = d.batch(batchId);
  return batch?.aside === true && ASIDE.has(batch.status);
}

/** A successor has finished when its run that contained the failed batch has a result. */
const FINISHED: ReadonlySet<Batch["status"]> = new Set(["PASSED", "PENDING_FAILURE", "BISECTING", "MERGING"]);

/**
 * Rule 13: a failed batch waits for up to `pendingFailureDepth` successors that contain it to
 * finish their runs; with optimistic merging one of them passing merges it (see merging.ts).
 * Successors that do not exist yet are not waited for, but one that arrives before the wait ends
 * counts.
 */
function rescueWindowClosed(d: Draft, graph: LaneGraph, batchId: string): boolean {
  const depth = d.state.settings.pendingFailureDepth;
  if (depth === 0) return true;
  return graph
    .descendantsOf(batchId)
    .slice(0, depth)
    .every((id) => FINISHED.has(d.batch(id)?.status ?? "QUEUED"));
}

const SETTLED_AHEAD: ReadonlySet<Batch["status"]> = new Set(["PASSED", "MERGING"]);

/**
 * A failed batch steps aside once everything ahead of it in its lane has passed: only then is
 * the failure its own (or a flake). While a batch ahead is still testing, the failure may be that
 * batch's, and when it fails this one simply restarts, in its place, with nobody behind it
 * restarted for nothing. A failure shown not to be the failed batch ahead's (`standsAlone`: its
 * run failed none of that batch's tests) steps aside at once: the line behind it goes on, on the
 * batches still testing ahead, as every speculative run does. If one of those fails the same
 * tests, the failure was that batch's after all, and this batch's PRs go back into the line
 * (sendBackExplained).
 */
export function ejectFailures(d: Draft, graph: LaneGraph): void {
  for (const batchId of [...graph.withStatus("PENDING_FAILURE")]) {
    const batch = d.batch(batchId);
    if (batch === undefined || batch.aside === true) continue;
    if (mayRetry(batch)) {
      const built = builtOn(d, batch);
      const own = successorsFailingOtherTests(d, batch, built);
      if (own.length > 0 || built.some((run) => run.status === "PASSED")) {
        for (const id of own) standAlone(d, id);
        retryInPlace(d, batchId);
        continue;
      }
    }
    const unsettled = graph
      .ancestorsOf(batchId)
      .filter((id) => !SETTLED_AHEAD.has(d.batch(id)?.status ?? "QUEUED"));
    if (unsettled.length > 0 && batch.failure?.standsAlone !== true) continue;
    if (!rescueWindowClosed(d, graph, batchId)) continue;
    // Its probe passed on the target alone and everything ahead passed: only a flake failed it.
    if (mayRetry(batch) && batch.probe?.passed === true && isCurrentProbe(batch, batch.probe.runId)) {
      retryInPlace(d, batchId);
      continue;
    }
    d.editBatch(batchId).aside = true;
    ejectFailedBatch(d, batchId);
    // The lanes change shape: the line now goes on without this batch.
    d.shape++;
  }
}

/**
 * A failed batch that a run built on it has since passed with (a speculative run behind it, which
 * contained all of its PRs), or failed with none of its failed tests (a bad PR fails its tests
 * wherever it runs), or whose probe passed once everything ahead passed, most likely failed by a
 * flake: instead of stepping aside, which throws away every run built on it and searches it aside,
 * it is tested once more in its place, and the runs behind it stay valid. Only a failure of the
 * tests, and once per batch: if it fails again, it steps aside as usual (a bad PR never merges: the
 * batch merges from its own passing run only).
 */
function mayRetry(batch: Readonly<Batch>): boolean {
  if (batch.retried === true || batch.failure === null || batch.failure.probe === true) return false;
  return batch.failure.reason === "TESTS_FAILED";
}

function retryInPlace(d: Draft, batchId: string): void {
  restartBatch(d, batchId, "FAILURE_NOT_CONFIRMED");
  d.editBatch(batchId).retried = true;
}

/** The current main runs of the batches behind that were built on all of the batch's PRs. */
function builtOn(d: Draft, batch: Readonly<Batch>): TestRun[] {
  return d
    .allRuns()
    .filter(
      (run) =>
        run.kind === "main" &&
        run.batchId !== batch.id &&
        d.batch(run.batchId)?.runId === run.id &&
        batch.prs.every((p) => run.base.includes(p)),
    );
}

/**
 * The batches behind whose runs, built on the batch (`built`, see builtOn), failed none of the tests the batch's
 * run failed: their failures are their own (see failsOnItsOwn), and the batch's was not its PRs'. Only with
 * batching on (a failure of its own is then searched, never final at once) and when both runs named every test
 * they failed.
 */
function successorsFailingOtherTests(d: Draft, batch: Readonly<Batch>, built: readonly TestRun[]): string[] {
  const mine = batch.failure?.tests;
  if (!d.state.settings.batch || mine === undefined) return [];
  return built.flatMap((run) => {
    const theirs = d.batch(run.batchId)?.failure;
    if (run.status !== "FAILED" || theirs?.runId !== run.id || theirs.tests === undefined) return [];
    if (theirs.probe === true || theirs.tests.some((t) => mine.includes(t))) return [];
    return [run.batchId];
  });
}

/** The batch's failure is its own (see failsOnItsOwn): it steps aside without waiting (see ejectFailures). */
function standAlone(d: Draft, batchId: string): void {
  const failure = d.batch(batchId)?.failure;
  if (failure != null) d.editBatch(batchId).failure = { ...failure, standsAlone: true };
}

/**
 * Every main run that contains the failed batch's PRs (the speculative runs behind it) is
 * doomed or stale, so it restarts now rather than failing later, small batches as one line
 * (batchRestartedTogether). Bisection runs are left alone: they never contain a batch that is
 * ahead of theirs.
 */
function ejectFailedBatch(d: Draft, batchId: string): void {
  const ejected = d.batch(batchId);
  const prs = new Set(ejected?.prs ?? []);
  const affected = new Set<string>();
  for (const run of d.allRuns()) {
    if (run.kind !== "main" || run.batchId === batchId) continue;
    if (run.base.some((p) => prs.has(p))) affected.add(run.batchId);
  }
  keepWitness(d, batchId);
  const restarted: string[] = [];
  for (const id of affected) {
    if (failsOnItsOwn(d, id, ejected?.failure?.tests)) continue;
    if (isOffline(d, id)) {
      sendBackExplained(d, id, ejected?.prs ?? []);
    } else {
      restartBatch(d, id, "ITEM_AHEAD_REMOVED");
      restarted.push(id);
    }
  }
  batchRestartedTogether(d, restarted);
}

/**
 * A batch that stepped aside before the batches ahead of it had passed (its failure looked like its own, see
 * ejectFailures) and whose failure turns out to be this failed batch's, which failed the same tests: nothing in it
 * is known bad. Its PRs go back into the line as a search's released segments do (requeueGoodGroup: behind the PRs
 * that have started testing, ahead of those that have not, formed into batches with them), not as the same batch
 * in its old place, ahead of the line that went on without it; its search, if it began, ends.
 */
function sendBackExplained(d: Draft, batchId: string, by: readonly number[]): void {
  const batch = d.batch(batchId);
  const runId = batch?.failure?.runId;
  if (batch === undefined || runId === undefined) return restartBatch(d, batchId, "ITEM_AHEAD_REMOVED");
  const who = by.map((n) => `#${n}`).join(", ");
  dropRunsOf(d, batchId, "ITEM_AHEAD_REMOVED");
  const detail = `${who} failed the tests its run failed; tested again in line`;
  requeueGoodGroup(d, batchId, batch.prs, runId, "FAILURE_EXPLAINED_ELSEWHERE", detail);
  d.deleteBatch(batchId);
}

/**
 * A batch behind whose run already failed tests that the ejected batch's run did not fail: that failure is its
 * own (a run fails the tests of every bad PR it holds), so it keeps it, on those tests alone, and is searched
 * like any failed batch instead of running once more only to fail again. Only with batching on: the search then
 * tests its PRs on the target alone before any fails; without it a failure is final, so a run shared with a
 * failed PR is not enough.
 */
function failsOnItsOwn(d: Draft, batchId: string, aheadTests: readonly string[] | undefined): boolean {
  if (!d.state.settings.batch) return false;
  const batch = d.batch(batchId);
  const failure = batch?.failure;
  if (batch?.status !== "PENDING_FAILURE" || failure == null || failure.tests === undefined) return false;
  if (aheadTests === undefined || failure.probe === true) return false;
  const own = failure.tests.filter((t) => !aheadTests.includes(t));
  if (own.length === 0) return false;
  d.editBatch(batchId).failure = { ...failure, tests: own, standsAlone: true };
  return true;
}

const WITH_MAIN_RUN: ReadonlySet<Batch["status"]> = new Set(["TESTING", "PASSED"]);

/**
 * A main run is valid only while what is queued ahead of its batch is exactly the run's base.
 * A batch that comes back into the line ahead of runs that started without it (a failure that
 * turned out to prove nothing) makes them stale: they restart.
 */
export function restartStaleRuns(d: Draft, graph: LaneGraph): void {
  for (const status of WITH_MAIN_RUN) {
    for (const batchId of [...graph.withStatus(status)]) {
      const batch = d.batch(batchId);
      const run = batch?.runId == null ? undefined : d.run(batch.runId);
      if (run === undefined || run.kind !== "main") continue;
      const ahead = graph.prsOf(d.state.batches, graph.ancestorsOf(batchId));
      const queuedBase = run.base.filter((p) => d.pr(p) !== undefined);
      const same =
        ahead.length === queuedBase.length && new Set(ahead).size === new Set([...ahead, ...queuedBase]).size;
      if (!same) restartBatch(d, batchId, "ITEM_AHEAD_REMOVED");
    }
  }
}

/**
 * Whether a group that passed in a bisection can merge from that run: only while the target has
 * not moved since the bisection began and nothing behind the bisected batch has started testing
 * without it. Otherwise it goes back into the line (requeueGoodGroup).
 *
 * Given the passing run, the target is judged by that run alone: a run that started after the target
 * moved, on nothing still queued but its own good groups, and that nothing but its base has moved
 * since, tests exactly what would land. Sending its group back into the line would only test the same
 * branch once more (in quiet hours and at the end of a load, a whole run of latency for nothing).
 */
export function canMergeFromBisection(d: Draft, graph: LaneGraph, batchId: string, runId?: string): boolean {
  const batch = d.batch(batchId);
  const bisection = batch?.bisection;
  if (bisection?.requeueOnly === true) return false;
  // A bisection that began while batches were ahead (a failed probe) tested without them. Its own
  // good groups still merging ahead of it do not count: its later runs were built on them.
  if (graph.ancestorsOf(batchId).some((id) => !isOwnGoodGroup(d, id, bisection))) return false;
  const parallel = d.state.settings.mode !== "SINGLE";
  const run = runId === undefined ? undefined : d.run(runId);
  if (run !== undefined && run.kind === "bisection") {
    if (!testsWhatLands(d, run, bisection)) return false;
  } else if (parallel) {
    if (bisection?.laneMoved === true) return false;
  } else {
    const mergesAtStart = bisection?.mergesAtStart;
    const expected = (mergesAtStart ?? 0) + (bisection?.groupsMerged ?? 0);
    if (mergesAtStart !== undefined && expected !== d.state.counters.merge) return false;
  }
  const index = graph.indexOf(batchId);
  for (const id of graph.batchOrder.slice(index + 1)) {
    const other = d.batch(id);
    const status = other?.status;
    if (status === undefined || status === "FORMING" || status === "QUEUED" || isOffline(d, id)) continue;
    // In parallel lanes only a batch of its own lane that started without it makes its runs stale.
    if (!parallel || sameLane(d, batch?.prs ?? [], other?.prs ?? [])) return false;
  }
  return true;
}

/** The run's branch is still the target plus what merges ahead of its group (see canMergeFromBisection). */
function testsWhatLands(d: Draft, run: Readonly<TestRun>, bisection: Bisection | null | undefined): boolean {
  if (run.targetMoved === true) return false;
  return run.base.every((p) => {
    const batchId = d.pr(p)?.batchId;
    return batchId === undefined || (batchId !== null && isOwnGoodGroup(d, batchId, bisection));
  });
}

/** A batch detached from this bisection (see detachGoodGroup): its run is one of the bisection's. */
function isOwnGoodGroup(d: Draft, batchId: string, bisection: Bisection | null | undefined): boolean {
  const runId = d.batch(batchId)?.runId;
  if (runId == null || bisection == null) return false;
  return Object.values(bisection.results).some((r) => r.runId === runId);
}

/** Whether any PR of `a` shares a lane with any PR of `b` (rules 11, 12); one lane in single mode. */
export function sameLane(d: Draft, a: readonly number[], b: readonly number[]): boolean {
  if (d.state.settings.mode === "SINGLE") return true;
  const targetsOf = (n: number) => d.pr(n)?.impactedTargets?.targets ?? "ALL";
  return a.some((x) => b.some((y) => targetsOverlap(targetsOf(x), targetsOf(y))));
}

/**
 * PRs cleared by a bisection whose run can no longer merge: they go back into the line where
 * they belong by priority and submission, that is ahead of every PR that has not started
 * testing, and are tested again with them (most often filling a forming batch).
 */
export function requeueGoodGroup(
  d: Draft,
  batchId: string,
  prs: readonly number[],
  runId: string,
  reason:
    "BISECTION_PASSED" | "CLEARED_BY_EARLIER_BISECTION" | "FAILURE_EXPLAINED_ELSEWHERE" = "BISECTION_PASSED",
  detail?: string,
): void {
  const present = new Set(prs.filter((n) => d.pr(n) !== undefined));
  if (present.size === 0) return;
  const mine = d.editBatch(batchId);
  mine.prs = mine.prs.filter((n) => !present.has(n));
  d.removeFromOrder(present);
  for (const n of prs) {
    if (!present.has(n)) continue;
    const entry = d.editPr(n);
    entry.batchId = null;
    entry.startedTesting = false;
    // Vouched for by this run; a member sent back untested (CLEARED_BY_EARLIER_BISECTION) has used its voucher.
    if (reason === "BISECTION_PASSED") entry.cleared = true;
    else delete entry.cleared;
    setPrState(d, n, "PENDING", reason, runId, false, detail);
  }
  const first = d.pr(prs.find((n) => present.has(n)) as number);
  const earliest = Math.min(...[...present].map((n) => d.pr(n)?.submittedAt ?? Infinity));
  let index = requeueIndex(d, first?.priority.value ?? 0, earliest);
  for (const n of prs) if (present.has(n)) insertAt(d, n, index++);
}
