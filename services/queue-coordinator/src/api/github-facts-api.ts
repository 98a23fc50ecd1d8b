import { FailedPreconditionError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { QueueCoordinatorServer } from "@mainline/proto/queue";

type FactHandlers = Pick<
  AsyncImplementation<QueueCoordinatorServer>,
  "recordCommitStatus" | "recordBranchPush"
>;

/** CI statuses on test branches and pushes to target branches, as GitHub's webhooks tell them. */
export function githubFactsApi(_deps: unknown): FactHandlers {
  // The contract is committed first (h-gh-double builds on it); the handlers follow on this branch.
  return {
    recordCommitStatus() {
      return Promise.reject(new FailedPreconditionError("RecordCommitStatus is not implemented yet"));
    },
    recordBranchPush() {
      return Promise.reject(new FailedPreconditionError("RecordBranchPush is not implemented yet"));
    },
  };
}
