import type { RunInFlight } from "./run-tree.js";

interface QueuedPr {
  prNumber: number;
  state: string;
}

/**
 * What a PR in PENDING_FAILURE waits for before it fails (or merges, should a run with it pass): the PRs ahead
 * of it to merge or leave, and the runs in flight that contain it to finish. The coordinator's rule 13, read from
 * getQueue's order and runs.
 */
export function pendingFailureWaits(
  prs: readonly QueuedPr[],
  runs: readonly RunInFlight[],
  pr: QueuedPr,
): string {
  const ahead = prs.slice(0, prs.indexOf(pr)).filter((p) => p.state !== "PENDING_FAILURE");
  const containing = runs.filter((r) => r.prNumbers.includes(pr.prNumber));
  const waits = [
    ahead.length > 0 && `${ahead.map((p) => `#${p.prNumber}`).join(", ")} ahead to merge or leave`,
    containing.length > 0 &&
      `${containing.length === 1 ? "the run that contains" : `the ${containing.length} runs that contain`} it to finish`,
  ].filter(Boolean);
  return waits.length > 0 ? waits.join(" and ") : "the next round of the queue";
}
