/**
 * How CI statuses reported by the code host on a test branch's head decide a test run. Pure: the facts API
 * records the statuses on the run and applies the verdict.
 */
export type StatusState = "PENDING" | "SUCCESS" | "FAILURE";

export interface StatusCheck {
  context: string;
  url: string;
  /** GitHub's words, as getMergeQueueTestingDetails reports them. */
  state: "pending" | "success" | "failure";
}

export type StatusVerdict =
  { type: "PASSED" } | { type: "FAILED"; context: string } | { type: "WAITING"; missing: string[] };

const WORD: Record<StatusState, StatusCheck["state"]> = {
  PENDING: "pending",
  SUCCESS: "success",
  FAILURE: "failure",
};

/** The run's checks with this status in place of any earlier one of the same context (latest wins). */
export function withStatus(
  checks: readonly StatusCheck[],
  status: { context: string; state: StatusState; url: string },
): StatusCheck[] {
  const next = checks.filter((c) => c.context !== status.context);
  next.push({ context: status.context, url: status.url, state: WORD[status.state] });
  return next;
}

/**
 * With required statuses, every one must succeed and any failure fails the run at once (GitHub's rule for
 * required checks). Without, a whole-suite result (a check suite or workflow run) that completed decides: the
 * queue then trusts whatever CI reports on the branch, and a single commit status cannot pass a run by itself.
 */
export function verdictOf(
  required: readonly string[],
  checks: readonly StatusCheck[],
  latest: { context: string; state: StatusState; suite: boolean },
): StatusVerdict {
  if (required.length === 0) {
    if (!latest.suite || latest.state === "PENDING") return { type: "WAITING", missing: [] };
    return latest.state === "SUCCESS" ? { type: "PASSED" } : { type: "FAILED", context: latest.context };
  }
  const byContext = new Map(checks.map((c) => [c.context, c.state]));
  const failed = required.find((r) => byContext.get(r) === "failure");
  if (failed !== undefined) return { type: "FAILED", context: failed };
  const missing = required.filter((r) => byContext.get(r) !== "success");
  return missing.length === 0 ? { type: "PASSED" } : { type: "WAITING", missing };
}
