import type { FailedTest, KnownTestStatus, RunTestFailures } from "@mainline/contract";

export type { FailedTest, KnownTestStatus, RunTestFailures };

/** What the queue knows of one failed test when it decides its run (flaky-analytics' answer, and its own runs). */
export interface TestKnowledge {
  /** flaky-analytics' status of the test; "unknown": never seen. */
  status: KnownTestStatus;
  /** flaky-analytics quarantines it for the repository (auto-quarantine or ALWAYS_QUARANTINE, quarantining on). */
  quarantined: boolean;
  /** Since when the status holds (ms since the epoch), when known: the "since" of a broken target. */
  statusSince: number | null;
  /**
   * When the test failed on the target's own latest run, or on a run of the same base without the batch's PRs
   * (ms since the epoch); null: not seen failing there. Either way the failure is the target's, not the PRs'.
   */
  failedOnTargetAt: number | null;
}

/**
 * The answer about one run's failed tests. The whole answer is absent (null) when flaky-analytics could not be
 * asked or did not answer in time: the run is then decided as today, never on a guess.
 */
export interface FailedTestsKnowledge {
  /** The repository's quarantining is on: the value of each test-aware queue setting left null. */
  quarantiningEnabled: boolean;
  /** By test id. A failed test missing here is unknown. */
  tests: Readonly<Record<string, TestKnowledge>>;
}

export const UNKNOWN_TEST: Readonly<TestKnowledge> = Object.freeze({
  status: "unknown",
  quarantined: false,
  statusSince: null,
  failedOnTargetAt: null,
});

export function knowledgeOf(knowledge: FailedTestsKnowledge, testId: string): TestKnowledge {
  return Object.hasOwn(knowledge.tests, testId) ? (knowledge.tests[testId] as TestKnowledge) : UNKNOWN_TEST;
}
