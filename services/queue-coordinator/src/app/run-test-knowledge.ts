import type { FailedTest, FailedTests } from "@mainline/contract";
import { FAILED_TESTS_LIMITS } from "@mainline/contract";
import type { Logger } from "@mainline/kit/logging/index";
import type { QueueAddress } from "./queue-key.js";
import type { TestStatusFact, TestStatusSource } from "./test-status-source.js";

/** A failed test of the run with what flaky-analytics said of it (nothing when it could not be asked). */
export type FailedTestKnowledge = FailedTest & Partial<Omit<TestStatusFact, "id">>;

/**
 * What the queue knows of a failed run's tests when it decides the run (issue 26). `available: false` means
 * flaky-analytics could not answer in time: the run is decided as if nothing were known, and the history says
 * so, never passing a guess off as a fact.
 */
export interface RunTestKnowledge {
  failed: FailedTestKnowledge[];
  /** More tests failed than are listed, or a report could not be read. */
  truncated: boolean;
  available: boolean;
  /** Why the knowledge is unavailable, for the history. */
  unavailableReason?: string;
}

/**
 * Asks flaky-analytics about a failed run's tests, once, within `deadlineMs`. Never throws: a run is never held up
 * by the question. Undefined when the run named no failed test (no JUnit, or none failed in it): decided as today.
 */
export async function runTestKnowledge(
  deps: { source?: TestStatusSource | undefined; deadlineMs: number; logger: Logger },
  queue: QueueAddress,
  failedTests: FailedTests | undefined,
): Promise<RunTestKnowledge | undefined> {
  if (failedTests === undefined || failedTests.tests.length === 0) return undefined;
  // A result message is bounded by its sender; this bound holds whatever sent it.
  const failed = failedTests.tests.slice(0, FAILED_TESTS_LIMITS.perStatusQuery);
  const truncated = failedTests.truncated || failed.length < failedTests.tests.length;
  const unavailable = (reason: string): RunTestKnowledge => ({
    failed: failed.map((t) => ({ id: t.id, name: t.name })),
    truncated,
    available: false,
    unavailableReason: reason,
  });
  if (deps.source === undefined) return unavailable("no flaky-analytics is configured");
  try {
    const facts = new Map(
      (
        await deps.source.statusOf(
          queue,
          failed.map((t) => t.id),
          deps.deadlineMs,
        )
      ).map((f) => [f.id, f]),
    );
    return {
      failed: failed.map((t) => {
        const { id: _id, ...fact } = facts.get(t.id) ?? { id: t.id, known: false, quarantined: false };
        return { id: t.id, name: t.name, ...fact };
      }),
      truncated,
      available: true,
    };
  } catch (error) {
    const reason = `flaky-analytics did not answer: ${(error as Error).message}`;
    deps.logger.warn(
      { err: error, queue: queue.targetBranch },
      "test knowledge unavailable; run decided without it",
    );
    return unavailable(reason.slice(0, 300));
  }
}

/** runTestKnowledge with its deps bound: what the result consumer and the report path call. */
export type AskTestKnowledge = (
  queue: QueueAddress,
  failedTests: FailedTests | undefined,
) => Promise<RunTestKnowledge | undefined>;
