import { pullRequestHref } from "../router.js";
import type { RunInFlight } from "../run-tree.js";
import type { EnqueuedPullRequest } from "./queue.js";

/**
 * PRs whose run failed but that are not failed yet (PENDING_FAILURE): the failure may come from a PR ahead, so
 * each waits for the PRs ahead of it to merge or leave and for the runs in flight that contain it to finish.
 */
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
          const ahead = prs.slice(0, prs.indexOf(pr)).filter((p) => p.state !== "PENDING_FAILURE");
          const containing = runs.filter((r) => r.prNumbers.includes(pr.prNumber));
          const waits = [
            ahead.length > 0 && `${ahead.map((p) => `#${p.prNumber}`).join(", ")} ahead to merge or leave`,
            containing.length > 0 &&
              `${containing.length === 1 ? "the run" : `${containing.length} runs`} that contain it to finish`,
          ].filter(Boolean);
          return (
            <li key={pr.id} data-pr={pr.prNumber}>
              <a href={pullRequestHref(repo, branch, pr.prNumber)}>
                #{pr.prNumber} {pr.prTitle || "(no title)"}
              </a>{" "}
              waits for {waits.length > 0 ? waits.join(" and ") : "the next round of the queue"}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
