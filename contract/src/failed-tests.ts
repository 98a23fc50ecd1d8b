/**
 * The bounds of what a queue run tells the coordinator about its tests (issue 26): the failed tests travel in
 * the run's result message and the coordinator asks flaky-analytics about them in one call, so both are capped.
 */
export const FAILED_TESTS_LIMITS = {
  /** Failed tests a run's result names; beyond it the list is marked truncated. */
  perRun: 500,
  /** A failed test's display name, in characters (history lines and check runs quote it). */
  nameChars: 256,
  /** Tests one status question to flaky-analytics may name. */
  perStatusQuery: 500,
} as const;

/** A test that failed in a run, by the id flaky-analytics knows it under. */
export interface FailedTest {
  readonly id: string;
  readonly name: string;
}

/** The failed tests of a run's JUnit reports, bounded; `truncated` also when a report could not be read. */
export interface FailedTests {
  readonly tests: readonly FailedTest[];
  readonly truncated: boolean;
}
