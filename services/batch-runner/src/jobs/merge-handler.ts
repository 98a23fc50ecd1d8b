import type { JetStreamClient } from "nats";
import type { DeliveryHandler } from "@mainline/kit/bus/index";
import { FailedPreconditionError, MainlineError } from "@mainline/kit/errors/index";
import type { GitHubAppClient } from "@mainline/kit/github/index";
import type { Logger } from "@mainline/kit/logging/index";
import { MergeOutcome, MergeResult, type MergeJob } from "@mainline/proto/queue";
import { publishMergeResult } from "../bus/result-publishers.js";
import { TargetMovedError } from "../git/git-errors.js";
import { fastForwardTarget } from "../git/merge.js";
import { assertRunId } from "../git/ref-names.js";
import type { RepositoryCache } from "../git/repository-cache.js";
import { deleteTestBranches } from "../git/test-branch-cleanup.js";
import { mergeThroughGitHub, PartialMergeError } from "./github-api-merge.js";
import { retargetStackedBeforePush } from "./github-retarget.js";
import { GitHubWaits } from "./github-wait.js";
import { readMergeJob, type MergeRequest } from "./merge-request.js";
import { retryLater, shouldRetry } from "./retry-later.js";

export interface MergeHandlerDeps {
  readonly js: JetStreamClient;
  readonly cache: RepositoryCache;
  readonly logger: Logger;
  readonly clock: () => Date;
  readonly maxDeliver: number;
  /** Deliveries the merge consumer allows on top of `maxDeliver` for GitHub's waits (JobConsumerSettings). */
  readonly githubWaitDeliveries?: number;
  /** The GitHub App, for queues that merge through GitHub's API (MergeJob.github.merge_through_api). */
  readonly github?: GitHubAppClient;
}

/**
 * Handles one delivery of a MergeJob: fast-forward the target to the tested commits, replayed
 * onto PRs that merged meanwhile when needed (never a force-push), publish the outcome, then
 * delete the test branches the merge made obsolete. A redelivery finds the tested PRs already on
 * the target and reports MERGED again, pushing nothing.
 */
export function mergeJobHandler(deps: MergeHandlerDeps): DeliveryHandler<MergeJob> {
  const waits = new GitHubWaits(deps.githubWaitDeliveries);
  return async ({ data: job, deliveryCount, publishedAt }) => {
    assertRunId("mergeId", job.mergeId);
    const log = deps.logger.child({ mergeId: job.mergeId, deliveryCount });
    let request: MergeRequest;
    try {
      request = readMergeJob(job);
    } catch (error) {
      await publishMergeResult(deps.js, failed(job, error, deps.clock()));
      throw error;
    }

    let result: MergeResult;
    try {
      if (job.github?.mergeThroughApi) {
        if (!deps.github)
          throw new FailedPreconditionError(
            "the queue merges through the GitHub API, but the batch-runner has no GitHub App " +
              "(set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY)",
          );
        const merged = await mergeThroughGitHub(deps.github, deps.cache, request, job);
        result = MergeResult.fromPartial({
          mergeId: job.mergeId,
          queue: request.queue,
          outcome: MergeOutcome.MERGED,
          newTargetSha: merged.mergedSha,
          landedShas: merged.landedShas,
          message: merged.alreadyMerged
            ? "GitHub already shows every pull request of the merge as merged"
            : `merged ${job.pullRequests.map((p) => `#${p.number}`).join(", ")} through the GitHub API onto ` +
              `${request.merge.targetBranch} (now ${merged.mergedSha})` +
              retargetNote(merged.retargeted, merged.retargetRefused, request.merge.targetBranch),
          finishedAt: deps.clock(),
        });
      } else {
        // GitHub shows a PR merged once its head reaches its base: a stacked PR's base must be the target first.
        if (job.github && deps.github) await retargetStackedBeforePush(deps.github, job, request.queue);
        const merged = await fastForwardTarget(deps.cache, request.merge);
        result = MergeResult.fromPartial({
          mergeId: job.mergeId,
          queue: request.queue,
          outcome: MergeOutcome.MERGED,
          newTargetSha: merged.mergedSha,
          landedShas: [merged.mergedSha],
          message: merged.alreadyMerged
            ? `${request.merge.targetBranch} already contained the tested commit`
            : `fast-forwarded ${request.merge.targetBranch} from ${merged.previousSha} to ${merged.mergedSha}`,
          finishedAt: deps.clock(),
        });
      }
    } catch (error) {
      if (error instanceof TargetMovedError) {
        result = MergeResult.fromPartial({
          mergeId: job.mergeId,
          queue: request.queue,
          outcome: MergeOutcome.TARGET_MOVED,
          newTargetSha: error.currentSha,
          message: error.message,
          finishedAt: deps.clock(),
        });
      } else {
        const wait = waits.waitFor(
          job.mergeId,
          error,
          deliveryCount,
          deps.maxDeliver,
          publishedAt,
          deps.clock(),
        );
        if (wait !== undefined) {
          log.warn(
            { err: error, delayMs: wait.retryAfterMs },
            "GitHub asked to wait; the merge is redelivered",
          );
          throw wait;
        }
        const failures = waits.failures(job.mergeId, deliveryCount);
        if (
          !waits.isLastDelivery(deliveryCount, deps.maxDeliver) &&
          shouldRetry(error, failures, deps.maxDeliver)
        )
          throw retryLater(error, failures);
        result =
          error instanceof PartialMergeError
            ? partiallyMerged(job, request, error, deps.clock())
            : failed(job, error, deps.clock());
      }
    }
    waits.done(job.mergeId);
    await publishMergeResult(deps.js, result);
    log.info({ outcome: MergeOutcome[result.outcome], newTargetSha: result.newTargetSha }, "merge finished");
    if (result.outcome === MergeOutcome.MERGED) await cleanUp(deps, request, log);
  };
}

/** Best effort: a branch left behind costs a ref on the remote, not a wrong merge. */
async function cleanUp(deps: MergeHandlerDeps, request: MergeRequest, log: Logger): Promise<void> {
  try {
    const deleted = await deleteTestBranches(
      deps.cache,
      request.merge.remoteUrl,
      request.obsoleteTestBranches,
      request.merge.credentialsSecretName,
      request.merge.githubInstallationId,
    );
    if (deleted.length > 0) log.info({ deleted }, "deleted obsolete test branches");
  } catch (error) {
    log.warn({ err: error }, "could not delete obsolete test branches; leaving them");
  }
}

/**
 * Some PRs landed on GitHub and the next was refused: the target moved by the queue's own merges. The result
 * names the PRs that landed (the queue marks them merged) and the heads they left (their push events are the
 * queue's own); the queue re-tests the rest on the new target.
 */
function partiallyMerged(
  job: MergeJob,
  request: MergeRequest,
  error: PartialMergeError,
  finishedAt: Date,
): MergeResult {
  return MergeResult.fromPartial({
    mergeId: job.mergeId,
    queue: request.queue,
    outcome: MergeOutcome.TARGET_MOVED,
    newTargetSha: error.landedShas.at(-1) ?? "",
    landedShas: [...error.landedShas],
    mergedPrNumbers: [...error.mergedPrs],
    message: error.message,
    finishedAt,
  });
}

function failed(job: MergeJob, error: unknown, finishedAt: Date): MergeResult {
  const reason = error instanceof MainlineError ? error.message : `unexpected failure: ${String(error)}`;
  return MergeResult.fromPartial({
    mergeId: job.mergeId,
    queue: job.queue,
    outcome: MergeOutcome.FAILED,
    message: reason,
    finishedAt,
  });
}

/** Issue 28: what became of the open PRs stacked on the merged ones. */
function retargetNote(moved: readonly number[], refused: readonly string[], target: string): string {
  const parts = [
    ...(moved.length > 0 ? [`moved ${moved.map((n) => `#${n}`).join(", ")} onto ${target}`] : []),
    ...(refused.length > 0 ? [`could not retarget the PRs based on ${refused.join("; ")}`] : []),
  ];
  return parts.length === 0 ? "" : `; ${parts.join("; ")}`;
}
