import { PullRequestState } from "@mainline/proto/queue/messages";

/** The name of Mainline's check run on a PR head (GitHub shows it among the PR's checks). */
export const CHECK_RUN_NAME = "Mainline merge queue";

/** What the check run on a PR head says, in GitHub's check-run vocabulary. */
export interface CheckRunView {
  readonly status: "queued" | "in_progress" | "completed";
  readonly conclusion?: "success" | "failure" | "cancelled" | "neutral";
  readonly title: string;
  readonly summary: string;
}

/** Where a PR stands in the queue, as the coordinator reports it when the event is handled. */
export interface PullRequestStanding {
  readonly state: PullRequestState;
  readonly targetBranch: string;
  /** 1-based place among the queue's enqueued PRs; absent when it has left the queue. */
  readonly position?: number;
  readonly queueLength?: number;
  readonly failureReason?: string;
  readonly cancellationReason?: string;
  /** The failed run's details (an external CI page, or the kept output on Mainline). */
  readonly failureDetailsUrl?: string;
  /** Mainline's page of this PR. */
  readonly pageUrl: string;
  /** What the queue said of its latest run (tests ignored as quarantined, a flaky retry, a broken target). */
  readonly notes?: readonly string[];
}

const FAILURE_TITLES: Record<string, string> = {
  TESTS_FAILED: "Tests failed",
  BUILD_FAILED: "The build failed",
  TIMED_OUT: "Testing timed out",
  MERGE_CONFLICT: "Merge conflict",
};

/** The check run for a PR's standing: queued (with its place), testing, merged, failed (why) or removed. */
export function checkRunView(standing: PullRequestStanding): CheckRunView {
  const view = baseView(standing);
  const notes = standing.notes ?? [];
  if (notes.length === 0) return view;
  // GitHub shows the summary as Markdown: one line per note, after what the state says.
  return { ...view, summary: `${view.summary}\n\n${notes.map((note) => `- ${note}`).join("\n")}` };
}

function baseView(standing: PullRequestStanding): CheckRunView {
  const target = `\`${standing.targetBranch}\``;
  const page = `[Mainline's page of this pull request](${standing.pageUrl})`;
  switch (standing.state) {
    case PullRequestState.NOT_READY:
      return {
        status: "queued",
        title: "Waiting to be ready",
        summary: `Submitted to the merge queue of ${target}; it enters the queue once it is ready to merge. ${page}`,
      };
    case PullRequestState.PENDING: {
      const place =
        standing.position !== undefined
          ? `Position ${standing.position}${standing.queueLength ? ` of ${standing.queueLength}` : ""}`
          : "Queued";
      return {
        status: "queued",
        title: `${place} in the queue`,
        summary: `${place} in the merge queue of ${target}. ${page}`,
      };
    }
    case PullRequestState.TESTING:
    case PullRequestState.TESTS_PASSED:
    case PullRequestState.PENDING_FAILURE:
      return {
        status: "in_progress",
        title: standing.state === PullRequestState.TESTS_PASSED ? "Tests passed, merging" : "Testing",
        summary:
          standing.state === PullRequestState.PENDING_FAILURE
            ? `Its test run failed; the queue is finding out whether this pull request is the cause. ${page}`
            : `Being tested on top of ${target} and the pull requests ahead of it. ${page}`,
      };
    case PullRequestState.MERGED:
      return {
        status: "completed",
        conclusion: "success",
        title: "Merged",
        summary: `Merged into ${target}. ${page}`,
      };
    case PullRequestState.FAILED: {
      const reason = standing.failureReason ?? "FAILED";
      const details = standing.failureDetailsUrl
        ? ` [The run's details](${standing.failureDetailsUrl}).`
        : "";
      return {
        status: "completed",
        conclusion: "failure",
        title: FAILURE_TITLES[reason] ?? "Failed in the queue",
        summary: `Removed from the merge queue of ${target}: ${reason}.${details} ${page}`,
      };
    }
    case PullRequestState.CANCELLED:
      return {
        status: "completed",
        conclusion: "cancelled",
        title: "Removed from the queue",
        summary: `Removed from the merge queue of ${target}${
          standing.cancellationReason ? `: ${standing.cancellationReason}` : ""
        }. ${page}`,
      };
    default:
      return {
        status: "queued",
        title: "Submitted",
        summary: `Submitted to the merge queue of ${target}. ${page}`,
      };
  }
}
