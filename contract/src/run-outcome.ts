/**
 * How a test run ended: the planner's word for it, and the word every layer writes (the gRPC enum
 * TestRunOutcome spells the same words, except BUILD_FAILED, which the wire calls ERROR).
 * A runner's own verdict is one of the first three; the coordinator adds MERGE_CONFLICT and BUILD_FAILED.
 */
export const RUN_OUTCOMES = ["PASSED", "FAILED", "TIMED_OUT", "MERGE_CONFLICT", "BUILD_FAILED"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

/** What a runner (the batch-runner's command, or an external CI) can say of the tests it ran. */
export type RunVerdict = Extract<RunOutcome, "PASSED" | "FAILED" | "TIMED_OUT">;

/** An external CI reports only pass or fail (POST /v1/reportTestRun `passed`); a bisection's step reads the same. */
export type PassOrFail = Extract<RunOutcome, "PASSED" | "FAILED">;

/** The gRPC enum's spelling of each outcome (proto TestRunOutcome; ts-proto string enums). */
export type WireRunOutcome = Exclude<RunOutcome, "BUILD_FAILED"> | "ERROR";

/** A test run's record status, as getMergeQueueTestingDetails writes it (compat-notes). */
export const TEST_RUN_STATUSES = ["IN_PROGRESS", "FAILED", "CANCELLED", "SUCCEEDED"] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];

/** A status check's state, in the code host's words (GitHub's commit statuses), as the API writes them. */
export const STATUS_CHECK_STATES = ["pending", "success", "failure", "error"] as const;
export type StatusCheckState = (typeof STATUS_CHECK_STATES)[number];

/** The gRPC enum StatusState: a CI status in the three states a merge-queue run cares about. */
export type WireStatusState = "PENDING" | "SUCCESS" | "FAILURE";

const STATUS_CHECK_STATE_OF_WIRE: Readonly<Record<WireStatusState, Exclude<StatusCheckState, "error">>> = {
  PENDING: "pending",
  SUCCESS: "success",
  FAILURE: "failure",
};

export function statusCheckStateOfWire(state: WireStatusState): Exclude<StatusCheckState, "error"> {
  return STATUS_CHECK_STATE_OF_WIRE[state];
}

/** `passed: boolean` from the API, as the outcome it is. */
export function reportedOutcome(passed: boolean): PassOrFail {
  return passed ? "PASSED" : "FAILED";
}

/** The record's status once the run ended. */
export function testRunStatusOf(outcome: RunOutcome): TestRunStatus {
  return outcome === "PASSED" ? "SUCCEEDED" : "FAILED";
}

/** The status check a verdict posts: a timeout is an error of the run, not a failing test. */
export function statusCheckStateOf(verdict: RunVerdict): StatusCheckState {
  return verdict === "PASSED" ? "success" : verdict === "TIMED_OUT" ? "error" : "failure";
}

export function wireRunOutcome(outcome: RunOutcome): WireRunOutcome {
  return outcome === "BUILD_FAILED" ? "ERROR" : outcome;
}

/** Undefined for UNSPECIFIED, or a word this build does not know. */
export function runOutcomeOfWire(word: string): RunOutcome | undefined {
  if (word === "ERROR") return "BUILD_FAILED";
  return RUN_OUTCOMES.find((outcome) => outcome === word && outcome !== "BUILD_FAILED");
}
