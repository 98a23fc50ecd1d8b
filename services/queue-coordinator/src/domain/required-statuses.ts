import { statusCheckStateOfWire, type StatusCheckState, type WireStatusState } from "@mainline/contract";

/**
 * How CI statuses reported by the code host on a test branch's head decide a test run. Pure: the facts API
 * records the statuses on the run and applies the verdict.
 */
export type StatusState = WireStatusState;

export interface StatusCheck {
  context: string;
  url: string;
  /** GitHub's words, as getMergeQueueTestingDetails reports them. */
  state: Exclude<StatusCheckState, "error">;
  /** A whole suite's result (a check suite or workflow run), rather than one check or commit status. */
  suite?: boolean;
}

export type StatusVerdict =
  { type: "PASSED" } | { type: "FAILED"; context: string } | { type: "WAITING"; missing: string[] };

/**
 * The context of one check suite of an App: each App (GitHub Actions above all, one suite per workflow) may run
 * several suites on a commit, so they are told apart by id; a required status naming the App is met once every
 * suite of it that reported succeeded.
 */
export function checkSuiteContext(app: string, suiteId: number | string): string {
  return `${app} (check suite ${suiteId})`;
}

const SUITE_ID = / \(check suite \d+\)$/;

/** The state of required status `name`: its own context, or all the check suites of the App of that name. */
function requiredState(name: string, checks: readonly StatusCheck[]): StatusCheck["state"] | undefined {
  const own = checks.find((c) => c.context === name);
  const suites = checks.filter((c) => SUITE_ID.test(c.context) && c.context.replace(SUITE_ID, "") === name);
  const all = own ? [own, ...suites] : suites;
  if (all.length === 0) return undefined;
  if (all.some((c) => c.state === "failure")) return "failure";
  return all.every((c) => c.state === "success") ? "success" : "pending";
}

/** The run's checks with this status in place of any earlier one of the same context (latest wins). */
export function withStatus(
  checks: readonly StatusCheck[],
  status: { context: string; state: StatusState; url: string; suite: boolean },
): StatusCheck[] {
  const next = checks.filter((c) => c.context !== status.context);
  next.push({
    context: status.context,
    url: status.url,
    state: statusCheckStateOfWire(status.state),
    ...(status.suite ? { suite: true } : {}),
  });
  return next;
}

/**
 * With required statuses, every one must succeed and any failure fails the run at once (GitHub's rule for
 * required checks); other contexts do not matter. Without, the queue trusts whatever CI reports on the branch:
 * any failure fails the run, and it passes once a whole suite (a check suite or workflow run) succeeded while
 * nothing reported is still pending, so a fast suite of one App cannot pass a run another App's CI is still
 * testing.
 */
export function verdictOf(required: readonly string[], checks: readonly StatusCheck[]): StatusVerdict {
  if (required.length === 0) {
    const failed = checks.find((c) => c.state === "failure");
    if (failed) return { type: "FAILED", context: failed.context };
    const pending = checks.filter((c) => c.state === "pending").map((c) => c.context);
    if (pending.length > 0 || !checks.some((c) => c.suite && c.state === "success"))
      return { type: "WAITING", missing: pending };
    return { type: "PASSED" };
  }
  const byContext = new Map(required.map((r) => [r, requiredState(r, checks)]));
  const failed = required.find((r) => byContext.get(r) === "failure");
  if (failed !== undefined) return { type: "FAILED", context: failed };
  const missing = required.filter((r) => byContext.get(r) !== "success");
  return missing.length === 0 ? { type: "PASSED" } : { type: "WAITING", missing };
}
