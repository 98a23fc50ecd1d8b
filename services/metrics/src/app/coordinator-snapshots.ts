import { runKindOf } from "@mainline/contract";
import { callUnary } from "@mainline/kit/grpc/index";
import { PullRequestState, type QueueCoordinatorClient, type Queue } from "@mainline/proto/queue";
import type { CoordinatorSnapshot, SnapshotPullRequest } from "../domain/coordinator-snapshot.js";
import type { LiveState } from "../domain/pull-request-timeline.js";
import type { QueueIdentity } from "../domain/queue-identity.js";

/** The states a PR waits or runs in; the wire's word is the domain's (string enums). */
function liveState(state: PullRequestState): LiveState | undefined {
  switch (state) {
    case PullRequestState.NOT_READY:
    case PullRequestState.PENDING:
    case PullRequestState.TESTING:
    case PullRequestState.TESTS_PASSED:
    case PullRequestState.PENDING_FAILURE:
      return state;
    default:
      return undefined;
  }
}

/** Asks the queue-coordinator for every organisation's queues, with their PRs and the runs in progress. */
export async function fetchCoordinatorSnapshot(
  coordinator: QueueCoordinatorClient,
  deadlineMs = 20_000,
): Promise<CoordinatorSnapshot> {
  const { queues } = await callUnary(
    coordinator.listQueues.bind(coordinator),
    { org: "", allOrganizations: true },
    { deadlineMs },
  );
  return snapshotOf(queues);
}

export function snapshotOf(queues: readonly Queue[]): CoordinatorSnapshot {
  const snapshot: CoordinatorSnapshot = { queues: [], pullRequests: [], runs: [] };
  for (const q of queues) {
    if (!q.ref?.org) continue;
    const queue: QueueIdentity = {
      org: q.ref.org,
      host: q.ref.repo?.host ?? "",
      owner: q.ref.repo?.owner ?? "",
      name: q.ref.repo?.name ?? "",
      branch: q.ref.targetBranch,
    };
    snapshot.queues.push(queue);
    for (const pr of q.enqueuedPullRequests) {
      const state = liveState(pr.state);
      if (state === undefined) continue;
      const entry: SnapshotPullRequest = {
        queue,
        pr: pr.prNumber,
        state,
        stateChangedAt: pr.stateChangedAt?.getTime() ?? 0,
      };
      snapshot.pullRequests.push(entry);
    }
    for (const run of q.activeTestRuns) {
      snapshot.runs.push({
        runId: run.testRunId,
        queue,
        kind: runKindOf(run.isBisection),
        startedAt: run.startedAt?.getTime() ?? 0,
      });
    }
  }
  return snapshot;
}
