import type { DeliveryHandler } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { TestBranchCleanupJob } from "@mainline/proto/queue";
import { assertSecretName } from "../git/git-credentials.js";
import { assertRemoteUrl, assertRunId } from "../git/ref-names.js";
import type { RepositoryCache } from "../git/repository-cache.js";
import { deleteTestBranches } from "../git/test-branch-cleanup.js";
import { retryLater, shouldRetry } from "./retry-later.js";

export interface TestBranchCleanupDeps {
  readonly cache: RepositoryCache;
  readonly logger: Logger;
  readonly maxDeliver: number;
}

/**
 * Deletes the pushed test branches of runs the planner cancelled while an external CI was testing
 * them: the CI stops when its branch goes. A run still being built here is stopped by the
 * cancellation board instead, and deletes its own branch; a branch already gone is skipped, so
 * either order ends with no branch. An unreachable remote is retried, then given up (logged).
 */
export function testBranchCleanupHandler(deps: TestBranchCleanupDeps): DeliveryHandler<TestBranchCleanupJob> {
  return async ({ data: job, deliveryCount }) => {
    assertRunId("cleanupId", job.cleanupId);
    assertRemoteUrl("remoteUrl", job.remoteUrl);
    if (job.credentialsSecretName !== "") assertSecretName(job.credentialsSecretName);
    const log = deps.logger.child({ cleanupId: job.cleanupId, deliveryCount });
    try {
      const deleted = await deleteTestBranches(
        deps.cache,
        job.remoteUrl,
        job.testBranches,
        job.credentialsSecretName,
      );
      log.info({ deleted }, "deleted the test branches of cancelled external runs");
    } catch (error) {
      if (shouldRetry(error, deliveryCount, deps.maxDeliver)) throw retryLater(error, deliveryCount);
      log.warn(
        { err: error, testBranches: job.testBranches },
        "could not delete test branches; leaving them",
      );
    }
  };
}
