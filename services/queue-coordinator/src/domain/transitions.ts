import type { Draft } from "./draft.js";
import { NO_OBSERVATIONS, observeConclusion } from "./observed-failures.js";
import { isTerminal, type PrState } from "./pull-request.js";
import type { TransitionReason } from "./reasons.js";

/**
 * The one place a PR changes state: it records the transition in the PR's history and in the
 * step's notices. A PR reaching a terminal state leaves the planner state; the notice carries
 * its final entry.
 */
export function setPrState(
  d: Draft,
  n: number,
  to: PrState,
  reason: TransitionReason,
  runId: string | null = null,
  /** The PR was in a bisecting batch it has just been taken out of. */
  bisected = false,
  detail?: string,
): void {
  const entry = d.editPr(n);
  const from = entry.state;
  entry.history.push({ at: d.now, from, to, reason, runId, ...(detail === undefined ? {} : { detail }) });
  entry.state = to;
  entry.stateChangedAt = d.now;
  const batch = entry.batchId === null ? undefined : d.batch(entry.batchId);
  const terminal = isTerminal(to);
  d.notify({
    type: "PR_STATE_CHANGED",
    pr: n,
    entryId: entry.id,
    from,
    to,
    reason,
    at: d.now,
    runId,
    batched: (batch?.prs.length ?? 1) > 1,
    isBisection: bisected || batch?.status === "BISECTING",
    finalEntry: terminal ? entry : null,
    ...(detail === undefined ? {} : { detail }),
  });
  if (terminal) {
    d.state.observed = observeConclusion(d.state.observed ?? NO_OBSERVATIONS, to);
    d.deletePr(n);
  }
}
