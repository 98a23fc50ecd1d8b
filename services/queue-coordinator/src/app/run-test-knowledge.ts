import { MAX_FAILED_TESTS_PER_RUN } from "@mainline/contract";
import type { Logger } from "@mainline/kit/logging/index";
import type { FailedTestsKnowledge, RunTestFailures } from "../domain/index.js";
import type { QueueAddress } from "./queue-key.js";
import type { TestStatusSource } from "./test-status-source.js";

/**
 * What TEST_RUN_FINISHED carries of a failed run's tests (issue 26): the tests, and what flaky-analytics knows of
 * them, or null when it could not answer in time, with the reason for the history: the run is then decided as if
 * nothing were known, never on a guess.
 */
export interface RunTestEvidence {
  tests: RunTestFailures;
  knowledge: FailedTestsKnowledge | null;
  /** Why `knowledge` is null. */
  unavailableReason?: string;
}

/**
 * Asks flaky-analytics about a failed run's tests, once, within `deadlineMs`. Never throws: a run is never held up
 * by the question. Undefined when the run gave no test results (no JUnit): decided as before. A run whose reports
 * name no failed test is not asked about (nothing to ask) but carries its empty list.
 */
export async function runTestEvidence(
  deps: { source?: TestStatusSource | undefined; deadlineMs: number; logger: Logger },
  queue: QueueAddress,
  tests: RunTestFailures | undefined,
): Promise<RunTestEvidence | undefined> {
  if (tests === undefined) return undefined;
  // A result message is bounded by its sender; this bound holds whatever sent it.
  const failed = tests.failed.slice(0, MAX_FAILED_TESTS_PER_RUN);
  const bounded = { failed, truncated: tests.truncated || failed.length < tests.failed.length };
  if (failed.length === 0) return { tests: bounded, knowledge: null };
  const unavailable = (reason: string): RunTestEvidence => ({
    tests: bounded,
    knowledge: null,
    unavailableReason: reason,
  });
  if (deps.source === undefined) return unavailable("no flaky-analytics is configured");
  try {
    const ids = failed.map((t) => t.id);
    return { tests: bounded, knowledge: await deps.source.knowledgeOf(queue, ids, deps.deadlineMs) };
  } catch (error) {
    deps.logger.warn(
      { err: error, org: queue.org, targetBranch: queue.targetBranch },
      "flaky-analytics did not answer about a failed run's tests; the run is decided without",
    );
    return unavailable(`flaky-analytics did not answer: ${(error as Error).message}`.slice(0, 300));
  }
}

/** runTestEvidence with its deps bound: what the result consumer and the report path call. */
export type AskTestEvidence = (
  queue: QueueAddress,
  tests: RunTestFailures | undefined,
) => Promise<RunTestEvidence | undefined>;

/** TEST_RUN_FINISHED's fields for the evidence: the planner decides with them, and says when knowledge was missing. */
export function testEvidenceFields(evidence: RunTestEvidence): {
  tests: RunTestFailures;
  knowledge: FailedTestsKnowledge | null;
  knowledgeUnavailable?: string;
} {
  return {
    tests: evidence.tests,
    knowledge: evidence.knowledge,
    ...(evidence.unavailableReason !== undefined && { knowledgeUnavailable: evidence.unavailableReason }),
  };
}
