import { recordBisectionResult } from "./bisection.js";
import type { Draft } from "./draft.js";
import { endPr } from "./membership.js";
import { finishProbe } from "./probes.js";
import type { FailureReason } from "./reasons.js";
import { containsAny, prsDecidedBy, type TestRunOutcome } from "./test-run.js";
import {
  blameTarget,
  decideFinishedRun,
  ignoredDetail,
  retryFlakyRun,
  retryOutcomeDetail,
  type RunTestEvidence,
  unavailableDetail,
} from "./run-failure.js";
import { releaseTargetHold } from "./target-hold.js";
import { setPrState } from "./transitions.js";

const MINUTE = 60_000;

function failureReasonOf(outcome: Exclude<TestRunOutcome, "PASSED">): FailureReason {
  return outcome === "FAILED" ? "TESTS_FAILED" : outcome;
}

/**
 * Applies a CI result. Results for runs the planner no longer tracks (cancelled, restarted,
 * already reported) are ignored, so a redelivered result changes nothing.
 */
export function finishTestRun(
  d: Draft,
  runId: string,
  outcome: TestRunOutcome,
  conflictingPr?: number,
  evidence: RunTestEvidence = {},
): void {
  const run = d.run(runId);
  if (run?.status !== "RUNNING") return;
  const batch = d.batch(run.batchId);
  if (batch === undefined) {
    d.deleteRun(runId);
    return;
  }

  if (outcome === "MERGE_CONFLICT" && conflictingPr !== undefined) {
    // A witness holds PRs that restarted in runs of their own: only those runs can fail them (see prsDecidedBy).
    const inRun =
      run.witness === true
        ? prsDecidedBy(run).includes(conflictingPr)
        : containsAny(run, new Set([conflictingPr]));
    if (inRun && d.pr(conflictingPr) !== undefined && d.pr(conflictingPr)?.mergeId === null) {
      // The run is over: restarts below must not cancel it again.
      d.editRun(runId).status = "FAILED";
      // A conflict is certain, not flaky: the PR leaves at once; runs built on it restart.
      if (run.kind === "bisection" && run.prs.includes(conflictingPr) && batch.bisection !== null) {
        const b = batch.bisection;
        const { [run.comboKey ?? ""]: _gone, ...running } = b.running;
        d.editBatch(batch.id).bisection = {
          ...b,
          running,
          segments: b.segments.map((s) => s.filter((n) => n !== conflictingPr)).filter((s) => s.length > 0),
          culprits: [...b.culprits, conflictingPr],
        };
        d.deleteRun(runId);
        endPr(d, conflictingPr, "FAILED", "MERGE_CONFLICT", runId, batch.id);
      } else {
        endPr(d, conflictingPr, "FAILED", "MERGE_CONFLICT", runId);
      }
      return;
    }
  }

  const decision = decideFinishedRun(d, run, batch, outcome, evidence);
  if (decision.kind === "TARGET_BROKEN") return blameTarget(d, run, batch, decision);
  if (decision.kind === "RETRY_IN_PLACE") return retryFlakyRun(d, batch.id, runId, decision.flaky);
  const passed = outcome === "PASSED" || decision.kind === "COUNT_AS_PASSED";
  // Every test passed on this run, the one that broke the target too.
  if (passed) releaseTargetHold(d, "RUN_PASSED");
  const reason = passed ? null : failureReasonOf(outcome);
  const mine = d.editRun(runId);
  mine.status = passed ? "PASSED" : "FAILED";
  mine.finishedAt = d.now;
  mine.failureReason = reason;

  if (run.kind === "bisection") {
    if (run.comboKey === null && batch.probe?.runId === runId) return finishProbe(d, batch.id, runId, reason);
    const result = {
      outcome: passed ? ("PASSED" as const) : ("FAILED" as const),
      runId,
      reason,
      prs: [...run.prs],
      ...failedTestsOf(passed, evidence),
    };
    const witness = batch.failure?.witness;
    if (batch.bisection === null && witness?.runId === runId && batch.failure != null) {
      // Its search has not begun (the batches ahead are still merging): the search takes it when it does.
      d.editBatch(batch.id).failure = { ...batch.failure, witness: { ...witness, result } };
    } else if (batch.bisection !== null && run.comboKey !== null) {
      d.editBatch(batch.id).bisection = recordBisectionResult(batch.bisection, run.comboKey, result);
    } else {
      return;
    }
    if (!passed) d.deleteRun(runId);
    return;
  }

  if (batch.status !== "TESTING" || batch.runId !== runId) return;
  const retried = retryOutcomeDetail(d, batch.id, passed);
  const edited = d.setBatchStatus(batch.id, passed ? "PASSED" : "PENDING_FAILURE");
  if (passed) {
    const ignored = decision.kind === "COUNT_AS_PASSED" ? ignoredDetail(decision.ignored) : undefined;
    const detail = [retried, ignored].filter((s) => s !== undefined).join("; ") || undefined;
    for (const n of edited.prs) setPrState(d, n, "TESTS_PASSED", "TEST_RUN_PASSED", runId, false, detail);
    return;
  }
  const tests = failedTestsOf(passed, evidence).failedTests;
  edited.failure = {
    reason: reason as FailureReason,
    at: d.now,
    runId,
    ...(tests === undefined ? {} : { tests }),
  };
  const failedDetail = [retried, unavailableDetail(evidence)].filter((s) => s !== undefined).join("; ");
  for (const n of edited.prs) {
    setPrState(d, n, "PENDING_FAILURE", reason as FailureReason, runId, false, failedDetail || undefined);
  }
  d.notify({ type: "BATCH_PENDING_FAILURE", batchId: batch.id, prs: [...edited.prs], runId, at: d.now });
}

/** A failed run's test ids when it gave them all (a cut list cannot show that a part failed the same tests). */
function failedTestsOf(passed: boolean, evidence: RunTestEvidence): { failedTests?: string[] } {
  const tests = evidence.tests;
  if (passed || tests === undefined || tests.truncated || tests.failed.length === 0) return {};
  return { failedTests: tests.failed.map((t) => t.id) };
}

/** The testing timeout: a run past it fails as TIMED_OUT and its CI job is cancelled. */
export function expireTimedOutRuns(d: Draft): void {
  const timeout = d.state.settings.testingTimeoutMinutes * MINUTE;
  if (timeout === 0) return;
  for (const run of d.allRuns()) {
    if (run.status !== "RUNNING" || d.now < run.startedAt + timeout) continue;
    d.decide({ type: "CANCEL_TEST_RUN", runId: run.id, reason: "TIMED_OUT" });
    finishTestRun(d, run.id, "TIMED_OUT");
  }
}

export function nextTimeoutAt(d: Draft): number | null {
  const timeout = d.state.settings.testingTimeoutMinutes * MINUTE;
  if (timeout === 0) return null;
  let next: number | null = null;
  for (const run of d.allRuns()) {
    if (run.status === "RUNNING") next = Math.min(next ?? Infinity, run.startedAt + timeout);
  }
  return next;
}
