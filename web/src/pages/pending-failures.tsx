import { pendingFailureWaits } from "../pending-failure-waits.js";
import { pullRequestHref } from "../router.js";
import type { RunInFlight } from "../run-tree.js";
import type { EnqueuedPullRequest } from "@mainline/contract";

/** PRs whose run failed but that are not failed yet (PENDING_FAILURE): the failure may come from a PR ahead. */
export function PendingFailures({
  prs,
  runs,
  repo,
  branch,
}: {
  prs: EnqueuedPullRequest[];
  runs: RunInFlight[];
  repo: string;
  branch: string;
}) {
  const pending = prs.filter((p) => p.state === "PENDING_FAILURE");
  if (pending.length === 0) return null;
  return (
    <section aria-labelledby="pending-failures-heading">
      <h2 id="pending-failures-heading">Pending failures</h2>
      <ul class="pending-failures">
        {pending.map((pr) => {
          return (
            <li key={pr.id} data-pr={pr.prNumber}>
              <a href={pullRequestHref(repo, branch, pr.prNumber)}>
                #{pr.prNumber} {pr.prTitle || "(no title)"}
              </a>{" "}
              waits for {pendingFailureWaits(prs, runs, pr)}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
