import {
  boundRunTestFailures,
  MAX_FAILED_TESTS_PER_RUN,
  type FailedTest,
  type RepositoryRef,
  type RunTestFailures,
} from "@mainline/contract";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { parseJUnitXml } from "./parse-junit.js";
import { testId } from "./test-id.js";

export interface FailedTestsScope {
  org: string;
  repo: RepositoryRef;
  variant?: string | undefined;
}

/**
 * The tests that failed in a run's JUnit reports, under the ids flaky-analytics gives them, at most `limit`,
 * sorted by id (two readings of the same reports answer the same), bounded as the contract says. A case that
 * passed in any report of the run (a rerun that passed) did not fail the run. A report that cannot be read marks
 * the list truncated: it may hide failures, so whoever decides on the list must not take it as the whole story.
 */
export function failedTestsOf(
  junitXml: readonly string[],
  scope: FailedTestsScope,
  limit: number = MAX_FAILED_TESTS_PER_RUN,
): RunTestFailures {
  const tests = new Map<string, { name: string; passed: boolean; failed: boolean }>();
  let unreadable = false;
  junitXml.forEach((xml, index) => {
    let results;
    try {
      results = parseJUnitXml(xml, { field: `junit[${index}]` });
    } catch (error) {
      if (!(error instanceof InvalidArgumentError)) throw error;
      unreadable = true;
      return;
    }
    for (const result of results) {
      const id = testId({
        ...scope,
        file: result.file,
        classname: result.classname,
        parent: result.parent,
        name: result.name,
      });
      const test = tests.get(id) ?? { name: displayName(result), passed: false, failed: false };
      if (result.outcome === "passed") test.passed = true;
      if (result.outcome === "failed" || result.outcome === "error") test.failed = true;
      tests.set(id, test);
    }
  });
  const failed: FailedTest[] = [...tests.entries()]
    .filter(([, t]) => t.failed && !t.passed)
    .map(([id, t]) => ({ id, name: t.name }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const bounded = boundRunTestFailures(failed.slice(0, Math.max(0, limit)));
  return {
    failed: bounded.failed,
    truncated: bounded.truncated || unreadable || failed.length > limit,
  };
}

/** How people read a test: its class or suite, then its name. */
function displayName(result: { name: string; classname?: string; parent: string }): string {
  return [result.classname ?? result.parent, result.name].filter(Boolean).join(" › ");
}
