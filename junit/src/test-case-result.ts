/** How one run of a test case ended. `error` is JUnit's "crashed" (not an assertion failure). */
export type TestOutcome = "passed" | "failed" | "error" | "skipped";

/** What the runner said about a failure or error. */
export interface FailureDetail {
  /** The `message` attribute, or the first line of the body when the runner wrote none. */
  message: string | undefined;
  /** The exception or assertion type, when the runner names it. */
  type: string | undefined;
  /** The stack trace or captured text, shortened. */
  body: string | undefined;
}

/** One execution of a test case; reruns inside a single CI job make several. */
export interface TestAttempt {
  outcome: TestOutcome;
  failure?: FailureDetail;
}

/**
 * One test case of a report, with its reruns folded in. `outcome` is the verdict of the whole
 * case: passed if any attempt passed (a flaky pass), otherwise the worst attempt.
 */
export interface TestCaseResult {
  name: string;
  classname?: string;
  /** The path of enclosing <testsuite> names, outermost first, joined by SUITE_PATH_SEPARATOR. */
  parent: string;
  file?: string;
  line?: number;
  durationMs: number;
  outcome: TestOutcome;
  /** The failure that decided a failed or errored outcome. */
  failure?: FailureDetail;
  /** The reason a skipped case gave, if any. */
  skippedMessage?: string;
  /** Every execution in report order; a flaky case is failed attempt(s) then a passed one. */
  attempts: TestAttempt[];
  systemOut?: string;
  systemErr?: string;
}

export const SUITE_PATH_SEPARATOR = " > ";

/** A <testcase> left out of an upload because it cannot be read as a test; the rest of the upload is kept. */
export interface IgnoredTestCase {
  /** The request field of its document, e.g. "junit[2]". */
  field: string;
  /** Its enclosing suites, joined by SUITE_PATH_SEPARATOR. */
  suite: string;
  classname: string;
  reason: string;
}
