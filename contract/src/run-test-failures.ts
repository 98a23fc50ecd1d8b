import type { TestStatus } from "./http/flaky-responses.js";

/**
 * The tests a queue run failed, as the run's result carries them to the coordinator (issue 26): from a COMMAND
 * runner's JUnit files or an EXTERNAL CI's reportTestRun. Bounded per run so one run with thousands of failures
 * cannot swell a result message or the planner's state; past the bound the list says it is incomplete, and an
 * incomplete list never counts a run as passed.
 */

/** Most failed tests one run's result carries. */
export const MAX_FAILED_TESTS_PER_RUN = 500;

/** Bound of a failed test's display name ("file > suite > name [variant]"), in characters. */
export const MAX_FAILED_TEST_NAME_LENGTH = 1024;

/** @mainline/junit's testId: a UUID v5 (lower case), stable across runs. */
export const TEST_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface FailedTest {
  /** @mainline/junit testId of the test (org, repository, file, classname, parent, name, variant). */
  id: string;
  /** What people read in history, check runs and the web page; cut to MAX_FAILED_TEST_NAME_LENGTH. */
  name: string;
}

export interface RunTestFailures {
  /** At most MAX_FAILED_TESTS_PER_RUN, each id once. */
  failed: FailedTest[];
  /** More tests failed than `failed` holds: the run's failures are not all known. */
  truncated: boolean;
}

/**
 * The bounded form of a run's failed tests: ids checked, duplicates dropped, names cut, the list cut to the bound
 * (and marked truncated). A malformed id is dropped and marks the list truncated, since a failure went unnamed.
 */
export function boundRunTestFailures(tests: Iterable<FailedTest>): RunTestFailures {
  const failed: FailedTest[] = [];
  const seen = new Set<string>();
  let truncated = false;
  for (const test of tests) {
    if (typeof test.id !== "string" || !TEST_ID_PATTERN.test(test.id)) {
      truncated = true;
      continue;
    }
    if (seen.has(test.id)) continue;
    if (failed.length === MAX_FAILED_TESTS_PER_RUN) {
      truncated = true;
      break;
    }
    seen.add(test.id);
    const name = typeof test.name === "string" ? test.name : "";
    failed.push({ id: test.id, name: [...name].slice(0, MAX_FAILED_TEST_NAME_LENGTH).join("") });
  }
  return { failed, truncated };
}

/**
 * What flaky-analytics knows of one failed test when its run is decided. `quarantined` is flaky-analytics' own
 * answer (auto-quarantine or an ALWAYS_QUARANTINE override, with the repository's quarantining on); `unknown`: a
 * test it has never seen.
 */
export type KnownTestStatus = TestStatus | "unknown";
