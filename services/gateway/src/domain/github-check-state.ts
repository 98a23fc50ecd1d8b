import type { StatusCheckState } from "@mainline/contract";

/**
 * GitHub's words for CI results (check conclusions, commit status states, workflow run conclusions) in the
 * three states a merge-queue test run cares about. Pure.
 */
export type CheckState = "PENDING" | "SUCCESS" | "FAILURE";

/**
 * A completed check's conclusion. GitHub counts neutral and skipped as passing a required check; anything else
 * that completed (failure, cancelled, timed_out, action_required, stale, startup_failure...) fails it, so an
 * unknown future conclusion fails safe rather than merging untested code.
 */
export function conclusionState(
  status: string | null | undefined,
  conclusion: string | null | undefined,
): CheckState {
  if (status !== "completed" || !conclusion) return "PENDING";
  return conclusion === "success" || conclusion === "neutral" || conclusion === "skipped"
    ? "SUCCESS"
    : "FAILURE";
}

/** A commit status's state (the Statuses API): error counts as failure, as GitHub's branch protection does. */
export function commitStatusState(state: StatusCheckState): CheckState {
  return state === "pending" ? "PENDING" : state === "success" ? "SUCCESS" : "FAILURE";
}

/** `refs/heads/main` -> `main`; undefined for tags and other refs. */
export function branchOfRef(ref: string): string | undefined {
  return ref.startsWith("refs/heads/") && ref.length > "refs/heads/".length
    ? ref.slice("refs/heads/".length)
    : undefined;
}

/** The App whose check suites run GitHub Actions workflows. */
export const ACTIONS_APP = "GitHub Actions";

/**
 * The context of one check suite of an App, told apart by id: GitHub Actions runs one suite per workflow, all
 * named by the App, so a name alone would let one workflow's suite overwrite another's. The coordinator's
 * required-statuses reads the same shape (a required status naming the App is met once all its suites succeeded).
 */
export function checkSuiteContext(app: string, suiteId: number | undefined): string {
  return suiteId === undefined ? app : `${app} (check suite ${suiteId})`;
}
