import type { Batch } from "./batch.js";
import type { Draft } from "./draft.js";
import { restartBatch } from "./restarts.js";
import { decideRunFailure, type RunFailureDecision } from "./run-failure-decision.js";
import { holdForBrokenTarget } from "./target-hold.js";
import type { FailedTest, FailedTestsKnowledge, RunTestFailures } from "./test-knowledge.js";
import type { TestRun, TestRunOutcome } from "./test-run.js";

/** What a run's result says of its tests, when it says anything (TEST_RUN_FINISHED's tests and knowledge). */
export interface RunTestEvidence {
  tests?: RunTestFailures | undefined;
  knowledge?: FailedTestsKnowledge | null | undefined;
  /** Why there is no knowledge (flaky-analytics down or slow): the failed run's history says so. */
  knowledgeUnavailable?: string | undefined;
}

/** The history detail of a run decided without knowledge of its tests, so no one reads it as a verdict on them. */
export function unavailableDetail(evidence: RunTestEvidence): string | undefined {
  if (evidence.knowledgeUnavailable === undefined) return undefined;
  return `decided without test knowledge (${evidence.knowledgeUnavailable})`;
}

const AS_TODAY: RunFailureDecision = { kind: "FAIL_AS_TODAY" };

/**
 * The planner's use of decideRunFailure for one finished run. Only a main run is retried in place (a bisection
 * run's failure is already weighed by the search and a lone PR's is confirmed before it fails), and once per batch,
 * sharing the once with the retry of a failure a successor disproved (ejection.ts).
 */
export function decideFinishedRun(
  d: Draft,
  run: Readonly<TestRun>,
  batch: Readonly<Batch>,
  outcome: TestRunOutcome,
  evidence: RunTestEvidence,
): RunFailureDecision {
  if (outcome !== "FAILED" || evidence.tests === undefined) return AS_TODAY;
  const isRetry = run.kind !== "main" || batch.retried === true;
  const decision = decideRunFailure(evidence.tests, evidence.knowledge, d.state.settings, {
    outcome,
    isRetry,
    now: d.now,
  });
  if (decision.kind === "RETRY_IN_PLACE" && (batch.status !== "TESTING" || batch.runId !== run.id)) {
    return AS_TODAY;
  }
  if (decision.kind !== "FAIL_AS_TODAY") {
    d.notify({ type: "RUN_FAILURE_DECIDED", runId: run.id, prs: [...run.prs], decision, at: d.now });
  }
  return decision;
}

export function testNames(tests: readonly FailedTest[]): string {
  return tests.map((t) => t.name || t.id).join(", ");
}

/** The history line of a run that passed only because every failed test is quarantined. */
export function ignoredDetail(ignored: readonly FailedTest[]): string {
  return `passed; failures ignored: quarantined tests ${testNames(ignored)}`;
}

/** The same run once more, in its place: the runs behind it, built on it, stay valid. */
export function retryFlakyRun(d: Draft, batchId: string, runId: string, flaky: readonly FailedTest[]): void {
  d.editRun(runId).status = "FAILED";
  const names = testNames(flaky);
  restartBatch(
    d,
    batchId,
    "KNOWN_FLAKY_TEST_RETRIED",
    `known flaky tests failed: ${names}; retrying once in place`,
  );
  const mine = d.editBatch(batchId);
  mine.retried = true;
  mine.flakyRetry = flaky.map((t) => t.name || t.id);
}

/** The retry's outcome, for the history of its PRs; undefined when the run was no such retry. */
export function retryOutcomeDetail(d: Draft, batchId: string, passed: boolean): string | undefined {
  const retry = d.batch(batchId)?.flakyRetry;
  if (retry == null) return undefined;
  d.editBatch(batchId).flakyRetry = null;
  return `retry after known flaky tests ${retry.join(", ")} failed: ${passed ? "passed" : "failed again"}`;
}

/**
 * The failure is the target's: no PR is blamed. The run's batch goes back to its place (a main run) or its
 * combination is tested again later (a bisection run); new runs wait for the target (target-hold.ts).
 */
export function blameTarget(
  d: Draft,
  run: Readonly<TestRun>,
  batch: Readonly<Batch>,
  decision: Extract<RunFailureDecision, { kind: "TARGET_BROKEN" }>,
): void {
  holdForBrokenTarget(d, decision.test, decision.since, run.id);
  const detail = `target broken: test ${decision.test.name || decision.test.id} fails on ${d.state.branch}`;
  if (run.kind === "main") {
    // Finished, not cancelled: the restart below must not cancel it again.
    d.editRun(run.id).status = "FAILED";
    if (batch.status === "TESTING" && batch.runId === run.id)
      restartBatch(d, batch.id, "TARGET_BROKEN", detail);
    d.deleteRun(run.id);
    return;
  }
  d.deleteRun(run.id);
  if (run.comboKey === null) {
    if (batch.probe?.runId === run.id) d.editBatch(batch.id).probe = null;
    return;
  }
  const bisection = batch.bisection;
  if (bisection == null || bisection.running[run.comboKey] !== run.id) return;
  const { [run.comboKey]: _gone, ...running } = bisection.running;
  d.editBatch(batch.id).bisection = { ...bisection, running };
}
