import type { StatusSettings } from "./status-settings.js";
import { HOUR_MS } from "../durations.js";
import { describeHours, recordObservation } from "./test-evidence.js";
import type { TestEvidence, TestObservation } from "./test-evidence.js";
import type { TestStatus, TestStatusValue } from "./test-status.js";

export interface StatusDecision {
  status: TestStatus;
  /** The value changed: the service publishes test_case.status_changed. */
  changed: boolean;
}

/**
 * The status a test has at `now` given its evidence. Broken is a present condition (it ends with
 * a pass); flaky lasts for the quiet window after its latest signal; otherwise healthy.
 * The timestamp of an unchanged value is kept, so it always says when the current state began.
 */
export function judgeStatus(
  previous: TestStatus | undefined,
  evidence: TestEvidence,
  settings: StatusSettings,
  now: number,
): StatusDecision {
  const verdict = currentVerdict(previous, evidence, settings, now);
  if (previous === undefined) {
    // A new test is healthy from its first sighting; anything else is a change worth announcing.
    return {
      status: { value: verdict.value, reason: verdict.reason, timestamp: now },
      changed: verdict.value !== "healthy",
    };
  }
  if (verdict.value === previous.value) return { status: previous, changed: false };
  return {
    status: { value: verdict.value, reason: verdict.reason, timestamp: verdict.since ?? now },
    changed: true,
  };
}

/** Records one observation and judges the test at the observation's time. */
export function observeTest(
  state: { evidence: TestEvidence; status: TestStatus | undefined },
  observation: TestObservation,
  settings: StatusSettings,
): { evidence: TestEvidence } & StatusDecision {
  const evidence = recordObservation(state.evidence, observation, settings);
  return { evidence, ...judgeStatus(state.status, evidence, settings, observation.at) };
}

interface Verdict {
  value: TestStatusValue;
  reason: string;
  /** When the verdict took effect, if earlier than now (a quiet window that ended between sweeps). */
  since?: number;
}

function currentVerdict(
  previous: TestStatus | undefined,
  evidence: TestEvidence,
  settings: StatusSettings,
  now: number,
): Verdict {
  const broken = brokenReason(evidence, settings);
  if (broken !== undefined) return { value: "broken", reason: broken };

  const quietMs = settings.quietWindowHours * HOUR_MS;
  const signal = evidence.lastFlakySignal;
  if (signal !== undefined && now < signal.at + quietMs) return { value: "flaky", reason: signal.reason };

  if (previous?.value === "flaky" && signal !== undefined) {
    return {
      value: "healthy",
      reason: `no flaky signal for ${describeHours(settings.quietWindowHours)}`,
      since: Math.max(signal.at + quietMs, previous.timestamp),
    };
  }
  if (previous?.value === "broken")
    return { value: "healthy", reason: "passed again after failing consistently" };
  return { value: "healthy", reason: "no flaky or broken signal" };
}

function brokenReason(evidence: TestEvidence, settings: StatusSettings): string | undefined {
  const needed = settings.brokenAfterConsecutiveFailures;
  const lastRuns = evidence.targetBranchRuns.failed.slice(-needed);
  if (lastRuns.length === needed && lastRuns.every((failed) => failed)) {
    return `failed the last ${needed} runs on the target branch`;
  }
  if (evidence.mergeQueueFailureStreak >= needed) {
    return `failed ${evidence.mergeQueueFailureStreak} merge-queue runs in a row without passing on the target branch`;
  }
  return undefined;
}
