import type { TestAwareQueueSetting } from "@mainline/contract";
import type { QueueSettings } from "./queue-settings.js";
import {
  knowledgeOf,
  type FailedTest,
  type FailedTestsKnowledge,
  type RunTestFailures,
} from "./test-knowledge.js";
import type { TestRunOutcome } from "./test-run.js";

/**
 * What a failed queue run means, decided per test (issue 26):
 * - COUNT_AS_PASSED: every failed test is quarantined; its PRs merge from the run;
 * - RETRY_IN_PLACE: the only failures (quarantined ones aside) are known flaky tests; the same run runs once more;
 * - TARGET_BROKEN: a failed test fails on the target itself; no PR is blamed and new runs on the target wait;
 * - FAIL_AS_TODAY: the failure is the PRs' until shown otherwise (pending failure, bisection, ejection).
 */
export type RunFailureDecision =
  | { kind: "COUNT_AS_PASSED"; ignored: FailedTest[] }
  | { kind: "RETRY_IN_PLACE"; flaky: FailedTest[] }
  | { kind: "TARGET_BROKEN"; test: FailedTest; since: number }
  | { kind: "FAIL_AS_TODAY" };

export type RunFailureDecisionKind = RunFailureDecision["kind"];

/** The queue's switches, as stored: null follows the repository's quarantining. */
export type TestAwareSettings = Pick<QueueSettings, TestAwareQueueSetting>;

export interface RunFailureContext {
  outcome: TestRunOutcome;
  /** The run is itself the retry of an earlier run: a flake earns one retry, never a second. */
  isRetry: boolean;
  /** The planner's clock (ms): the "since" of a broken target that nothing dates. */
  now: number;
}

const FAIL_AS_TODAY: RunFailureDecision = Object.freeze({ kind: "FAIL_AS_TODAY" });

/** Pure: the same failed tests, knowledge, settings and context always give the same decision. */
export function decideRunFailure(
  failedTests: RunTestFailures | null | undefined,
  knowledge: FailedTestsKnowledge | null | undefined,
  settings: TestAwareSettings,
  context: RunFailureContext,
): RunFailureDecision {
  // Only failing tests are decided here: a timeout, a conflict or a broken build says nothing about a test.
  if (context.outcome !== "FAILED") return FAIL_AS_TODAY;
  // No results, or only some of them: whatever failed unnamed may be the PRs' fault.
  if (failedTests == null || failedTests.truncated || failedTests.failed.length === 0) return FAIL_AS_TODAY;
  if (knowledge == null) return FAIL_AS_TODAY;
  const on = (setting: TestAwareQueueSetting): boolean => settings[setting] ?? knowledge.quarantiningEnabled;

  const ignored: FailedTest[] = [];
  const counted: FailedTest[] = [];
  for (const test of failedTests.failed) {
    (on("ignoreQuarantinedTests") && knowledgeOf(knowledge, test.id).quarantined ? ignored : counted).push(
      test,
    );
  }
  if (counted.length === 0) return { kind: "COUNT_AS_PASSED", ignored };

  if (on("holdOnBrokenTarget")) {
    for (const test of counted) {
      const since = brokenOnTargetSince(knowledge, test, context.now);
      if (since !== null) return { kind: "TARGET_BROKEN", test, since };
    }
  }

  if (on("retryKnownFlakyTests") && !context.isRetry) {
    if (counted.every((test) => knowledgeOf(knowledge, test.id).status === "flaky")) {
      return { kind: "RETRY_IN_PLACE", flaky: counted };
    }
  }
  return FAIL_AS_TODAY;
}

/** When the test started failing on the target, or null when nothing says it fails there. */
function brokenOnTargetSince(knowledge: FailedTestsKnowledge, test: FailedTest, now: number): number | null {
  const known = knowledgeOf(knowledge, test.id);
  if (known.failedOnTargetAt !== null) {
    return known.status === "broken" && known.statusSince !== null
      ? Math.min(known.statusSince, known.failedOnTargetAt)
      : known.failedOnTargetAt;
  }
  if (known.status === "broken") return known.statusSince ?? now;
  return null;
}
