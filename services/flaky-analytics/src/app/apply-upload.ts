import {
  EMPTY_EVIDENCE,
  NO_DAYS,
  addRunToBuckets,
  addRunToDays,
  addToTrend,
  packChange,
  withStatusChange,
  judgeStatus,
  NO_RECENT_RUNS,
  observeTest,
  pruneBuckets,
  recordFailure,
  runOutcome,
  withRecentRun,
} from "../domain/index.js";
import type { RepositoryTrend, TestObservation } from "../domain/index.js";
import type { EntryRun, TestDocument, UploadEntry } from "../store/documents.js";

export interface AppliedUpload {
  /** The new version of every test the upload reached (the old versions are left untouched). */
  updated: TestDocument[];
  /** Tests whose status changed: their pending event waits in the outbox. */
  changed: TestDocument[];
  newTests: number;
  /** The repository's runs per hour with this upload's. */
  trend: RepositoryTrend;
}

/**
 * Folds one journal entry into a repository's tests: evidence, status, hour buckets, failure groups, recent runs
 * and failure times. Pure: ingest and a replay after a restart run exactly this on the same entry
 * and the same prior state, so they reach the same tests.
 */
export function applyUpload(
  org: string,
  repoKey: string,
  entry: UploadEntry,
  testOf: (id: string) => TestDocument | undefined,
  trend: RepositoryTrend,
): AppliedUpload {
  const updated: TestDocument[] = [];
  const changed: TestDocument[] = [];
  let newTests = 0;
  const counts = { runs: 0, failures: 0 };
  for (const run of entry.runs) {
    const before = testOf(run.id);
    if (before === undefined) {
      // A replay of an entry whose test a snapshot never held always carries its identity.
      if (run.identity === undefined) continue;
      newTests++;
    }
    const test = foldRun(before, run, { org, repoKey, entry });
    updated.push(test);
    if (test.pendingStatusEvent && test.pendingStatusEvent !== before?.pendingStatusEvent) changed.push(test);
    if (test.days !== before?.days) {
      counts.runs++;
      if (run.outcomes.some((outcome) => outcome === "failed" || outcome === "error")) counts.failures++;
    }
  }
  const now = Math.max(entry.now, entry.at);
  return { updated, changed, newTests, trend: addToTrend(trend, entry.at, counts, now) };
}

function foldRun(
  before: TestDocument | undefined,
  run: EntryRun,
  ctx: { org: string; repoKey: string; entry: UploadEntry },
): TestDocument {
  const { entry } = ctx;
  const { at } = entry;
  const test: TestDocument = before ? { ...before } : newTest(run, ctx);
  test.lastSeenAt = Math.max(test.lastSeenAt, at);
  const outcomes = run.outcomes;
  let failed = false;
  let ran = false;
  for (const outcome of outcomes) {
    if (outcome === "failed" || outcome === "error") failed = true;
    if (outcome !== "skipped") ran = true;
  }
  // Spec rule 15: bisection runs are no flakiness data at all, not even failure figures.
  if (entry.context === "bisection" || !ran) return test;

  const observation: TestObservation = {
    at,
    commitSha: entry.commitSha,
    context: entry.context,
    onTargetBranch: entry.context === "ci" && entry.branch === entry.defaultBranch,
    attempts: outcomes,
  };
  const history = test.statusChanges ?? [packChange(test.status.timestamp, test.status.value)];
  const decision = observeTest(
    { evidence: test.evidence, status: before?.status },
    observation,
    entry.status,
  );
  test.evidence = decision.evidence;
  test.status = decision.status;
  if (decision.changed) {
    test.pendingStatusEvent = {
      eventId: `test-status:${run.id}:${decision.status.value}:${decision.status.timestamp}`,
      from: before?.status.value,
      to: decision.status,
      uploadId: entry.uploadId,
    };
    test.statusChanges = withStatusChange(
      history,
      decision.status.timestamp,
      decision.status.value,
      Math.max(entry.now, at),
    );
  }
  const pullRequests = entry.prNumber !== undefined ? [entry.prNumber] : (entry.impactedPrNumbers ?? []);
  test.buckets = pruneBuckets(
    addRunToBuckets(test.buckets, {
      at,
      failed,
      pullRequests,
    }),
    Math.max(entry.now, at),
  );
  const outcome = runOutcome(outcomes);
  const failedQueueRun = entry.context === "merge_queue" && outcome === "failed";
  test.days = addRunToDays(
    test.days ?? NO_DAYS,
    { at, failed, failedQueueRun, retryMs: run.retryMs ?? 0, pullRequests },
    Math.max(entry.now, at),
  );
  if (outcome !== undefined) {
    test.recentRuns = withRecentRun(test.recentRuns ?? NO_RECENT_RUNS, {
      at,
      outcome,
      context: entry.context,
      branch: entry.branch,
      commitSha: entry.commitSha,
      ...(entry.prNumber !== undefined ? { prNumber: entry.prNumber } : {}),
    });
  }
  if (failed) {
    outcomes.forEach((outcome, attempt) => {
      if (outcome === "failed" || outcome === "error") {
        test.failureGroups = recordFailure(test.failureGroups, run.failures[attempt] ?? undefined, at);
      }
    });
    test.failureTimes = withTime(test.failureTimes, at);
  }
  return test;
}

function newTest(run: EntryRun, ctx: { org: string; repoKey: string; entry: UploadEntry }): TestDocument {
  const { entry } = ctx;
  const identity = run.identity ?? { name: run.id };
  return {
    _id: run.id,
    org: ctx.org,
    repoKey: ctx.repoKey,
    repo: entry.repo,
    name: identity.name,
    variant: entry.variant,
    ...(identity.file ? { file: identity.file } : {}),
    ...(identity.classname ? { classname: identity.classname } : {}),
    ...(identity.parent ? { parent: identity.parent } : {}),
    status: judgeStatus(undefined, EMPTY_EVIDENCE, entry.status, entry.at).status,
    evidence: { ...EMPTY_EVIDENCE },
    buckets: [],
    failureGroups: [],
    failureTimes: [],
    firstSeenAt: entry.at,
    lastSeenAt: entry.at,
  };
}

/** `times` with `at` added (ascending, distinct): a new array, the old one may still be read. */
function withTime(times: readonly number[], at: number): number[] {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((times[mid] ?? 0) < at) low = mid + 1;
    else high = mid;
  }
  if (times[low] === at) return times as number[];
  return [...times.slice(0, low), at, ...times.slice(low)];
}
