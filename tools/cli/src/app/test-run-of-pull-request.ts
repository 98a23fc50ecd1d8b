import { setTimeout as sleep } from "node:timers/promises";
import type { Queue, QueueKey, SubmittedPullRequest } from "../api/api-types.js";
import type { MainlineApi } from "../api/mainline-api.js";
import { CliError, EXIT } from "../cli-error.js";
import { stateDetail } from "../domain/pull-request-states.js";

/**
 * The id of the merge-queue test run that is testing a PR (a batch's run when the PR is in one). A PR just
 * submitted gets its run a moment later, or after a batch fills, so this waits for it rather than fail a CI job
 * that reports quickly.
 */
export async function testRunOfPullRequest(
  api: MainlineApi,
  queue: QueueKey,
  prNumber: number,
  timeoutMs: number,
  pollMs = 250,
): Promise<string> {
  const started = Date.now();
  for (;;) {
    const { enqueuedPullRequests } = await api.post<Queue>("/getQueue", queue);
    const entry = enqueuedPullRequests.find((pr) => pr.prNumber === prNumber);
    if (entry?.testRunId) return entry.testRunId;
    if (!entry || Date.now() - started >= timeoutMs) {
      const pr = await api.post<SubmittedPullRequest>("/getSubmittedPullRequest", {
        ...queue,
        pr: { number: prNumber },
      });
      const detail = stateDetail(pr);
      const where = `PR #${prNumber} is ${pr.state}${detail ? ` (${detail})` : ""}`;
      throw new CliError(
        entry
          ? `${where} and has no test run after ${Math.round(timeoutMs / 1000)}s`
          : `${where}, not in the queue: there is no test run to report`,
        EXIT.failed,
      );
    }
    await sleep(pollMs);
  }
}
