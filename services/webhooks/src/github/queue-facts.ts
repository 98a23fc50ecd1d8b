import { callUnary, RemoteCallError } from "@mainline/kit/grpc/index";
import { PullRequestState, type QueueCoordinatorClient } from "@mainline/proto/queue";
import type { RepoTarget } from "../store/github-outbox.js";

/** A submitted PR as talking back needs it: its head, and why it failed or left. */
export interface SubmittedFacts {
  readonly headSha: string;
  readonly state: PullRequestState;
  readonly failureReason?: string;
  readonly cancellationReason?: string;
  readonly failureDetailsUrl?: string;
  /** What the queue said of the PR since its latest run started ("passed; failures ignored: quarantined tests X"). */
  readonly notes?: readonly string[];
}

export interface QueueStanding {
  /** The queue's own switches (compat-notes: statusCheckEnabled, commentsEnabled). */
  readonly statusCheckEnabled: boolean;
  readonly commentsEnabled: boolean;
  /** The queue's PRs in queue order. */
  readonly enqueued: readonly { number: number; headSha: string; state: PullRequestState }[];
}

/**
 * What the queue-coordinator (the owner of queues, PRs and installations) says, asked over gRPC. Undefined means
 * it does not know the PR / queue / a covering installation; a coordinator that cannot answer now throws a
 * retryable RemoteCallError.
 */
/** Most notes a check run quotes: the latest run's story, not the PR's whole history. */
const MAX_NOTES = 3;

/** The details of the PR's transitions since its latest run started, oldest first. */
export function notesSinceLatestRun(
  history: readonly { to: PullRequestState; detail?: string | undefined }[],
): string[] {
  let start = 0;
  history.forEach((t, index) => {
    if (t.to === PullRequestState.TESTING) start = index;
  });
  return history
    .slice(start)
    .flatMap((t) => (t.detail ? [t.detail] : []))
    .slice(-MAX_NOTES);
}

export class QueueFacts {
  constructor(private readonly coordinator: QueueCoordinatorClient) {}

  async pullRequest(
    org: string,
    repo: RepoTarget,
    targetBranch: string,
    number: number,
  ): Promise<SubmittedFacts | undefined> {
    const answer = await orUndefined(
      callUnary(this.coordinator.getSubmittedPullRequest.bind(this.coordinator), {
        queue: { org, repo, targetBranch },
        pr: { $case: "number", value: number },
      }),
    );
    const pr = answer?.pullRequest;
    if (!pr) return undefined;
    return {
      headSha: pr.prSha,
      state: pr.state,
      ...(pr.failureReason !== undefined && { failureReason: pr.failureReason }),
      ...(pr.cancellationReason !== undefined && { cancellationReason: pr.cancellationReason }),
      ...(pr.failureDetailsUrl !== undefined && { failureDetailsUrl: pr.failureDetailsUrl }),
      notes: notesSinceLatestRun(pr.history),
    };
  }

  async queue(org: string, repo: RepoTarget, targetBranch: string): Promise<QueueStanding | undefined> {
    const answer = await orUndefined(
      callUnary(this.coordinator.getQueue.bind(this.coordinator), { queue: { org, repo, targetBranch } }),
    );
    const queue = answer?.queue;
    if (!queue) return undefined;
    return {
      statusCheckEnabled: queue.statusCheckEnabled,
      commentsEnabled: queue.commentsEnabled,
      enqueued: queue.enqueuedPullRequests.map((pr) => ({
        number: pr.prNumber,
        headSha: pr.prSha,
        state: pr.state,
      })),
    };
  }

  /** The installation of `org` that covers the repository; undefined when none does (never another org's). */
  async installationFor(org: string, repo: RepoTarget): Promise<number | undefined> {
    const answer = await orUndefined(
      callUnary(this.coordinator.resolveGitHubInstallation.bind(this.coordinator), { org, repo }),
    );
    return answer?.installation?.installationId || undefined;
  }
}

async function orUndefined<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof RemoteCallError && error.code === "NOT_FOUND") return undefined;
    throw error;
  }
}
