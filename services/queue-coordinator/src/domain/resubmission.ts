import { FailedPreconditionError } from "@mainline/kit/errors/index";
import type { PullRequestEntry, PullRequestFacts } from "./pull-request.js";

/**
 * A PR whose latest submission merged has nothing left to land while its head is the one that merged:
 * queueing it again would test and "merge" an empty change. A head that moved since (new commits pushed
 * after a reopen) is new work and may be submitted again.
 */
export function refuseRemergeOf(
  latest: PullRequestEntry | null,
  current: PullRequestFacts | null,
  landedSha: string,
): void {
  if (latest?.state !== "MERGED") return;
  const mergedHead = latest.facts?.headSha ?? null;
  const currentHead = current?.headSha ?? mergedHead;
  if (currentHead !== mergedHead) return;
  throw new FailedPreconditionError(
    `#${latest.number} was merged in ${landedSha} at ${new Date(latest.stateChangedAt).toISOString()}; ` +
      "push new commits to submit it again",
  );
}
