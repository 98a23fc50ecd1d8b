/** Bounds of `mainline test --retries` and `--max-failed-for-retry`. */
export const RETRY_LIMITS = {
  retries: [0, 5],
  maxFailedForRetry: [1, 1000],
  defaultMaxFailedForRetry: 10,
} as const;

/** One attempt's test cases: which passed and which failed, by the test's identity in its reports. */
export interface AttemptTests {
  /** Key: the test's identity (file, class, suite, name); value: its display name. */
  failed: Map<string, string>;
  passed: Set<string>;
}

/** A test that failed in the first attempt and passed in a later one. */
export interface FlakyTest {
  name: string;
  /** The attempt it passed in, 2 for the first retry. */
  passedInAttempt: number;
}

/**
 * Where the retries stand: the first attempt's failures still failing, and those a later attempt passed (flaky).
 * A failure is forgiven only by a pass of the same test, never by its absence from a later report.
 */
export interface RetryState {
  unresolved: Map<string, string>;
  flaky: FlakyTest[];
}

export function firstAttempt(tests: AttemptTests, forgiven: ReadonlySet<string> = new Set()): RetryState {
  const unresolved = new Map([...tests.failed].filter(([key]) => !forgiven.has(key)));
  return { unresolved, flaky: [] };
}

/** The state after attempt `attempt` (2 for the first retry) reported `tests`. */
export function afterRetry(state: RetryState, attempt: number, tests: AttemptTests): RetryState {
  const unresolved = new Map(state.unresolved);
  const flaky = [...state.flaky];
  for (const [key, name] of state.unresolved) {
    if (!tests.passed.has(key) || tests.failed.has(key)) continue;
    unresolved.delete(key);
    flaky.push({ name, passedInAttempt: attempt });
  }
  return { unresolved, flaky };
}

/** Why no further attempt runs, or undefined when one should. */
export function stopRetrying(
  state: RetryState,
  attemptsLeft: number,
  lastAttempt: AttemptTests,
  maxFailedForRetry: number,
): string | undefined {
  if (state.unresolved.size === 0) return "every failure passed on a retry";
  if (attemptsLeft <= 0) return "no retries left";
  if (lastAttempt.failed.size > maxFailedForRetry)
    return `${lastAttempt.failed.size} tests failed, more than --max-failed-for-retry ${maxFailedForRetry}: not a flake`;
  return undefined;
}
