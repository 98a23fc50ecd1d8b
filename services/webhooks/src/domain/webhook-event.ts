import { batchWebhookEventType, pullRequestWebhookEventType, runKindOfWire } from "@mainline/contract";
import type {
  BatchLifecycleEvent,
  PullRequestLifecycleEvent,
  QueueLifecycleEvent,
  TestRunLifecycleEvent,
} from "@mainline/proto/queue/messages";
import { PullRequestState, QueueEventType, TestRunEventType } from "@mainline/proto/queue/messages";
import { TestStatus, type TestStatusChanged } from "@mainline/proto/flaky/messages";
import type { RepoRef } from "@mainline/proto/common";
import type { WebhookEventType } from "./event-types.js";

/** One event as receivers see it: its organisation, its type and the JSON payload (compat-notes fields). */
export interface WebhookEvent {
  /** The source event's id: with the subscription it makes the stable webhook-id. */
  eventId: string;
  org: string;
  type: WebhookEventType;
  payload: Record<string, unknown>;
}

/** Undefined for transitions that are published for the metrics only (STATE_CHANGED). */
export function pullRequestWebhookEvent(event: PullRequestLifecycleEvent): WebhookEvent | undefined {
  const type = pullRequestWebhookEventType(event.type);
  if (type === undefined) return undefined;
  return queueScopedEvent({ ...event, repo: event.repository }, type, {
    pr_number: event.prNumber,
    // PR states are written UPPERCASE, as the HTTP API writes them.
    status: PullRequestState[event.status] ?? "UNSPECIFIED",
    batched: event.batched,
    is_bisection: event.isBisection,
    test_branch: event.testBranch || null,
    test_branch_sha: event.testBranchSha || null,
    ...(event.failureReason !== undefined && { failure_reason: event.failureReason }),
    ...(event.cancellationReason !== undefined && { cancellation_reason: event.cancellationReason }),
  });
}

export function batchWebhookEvent(event: BatchLifecycleEvent): WebhookEvent | undefined {
  const type = batchWebhookEventType(event.type);
  if (type === undefined) return undefined;
  return queueScopedEvent({ ...event, repo: event.repository }, type, { pr_numbers: [...event.prNumbers] });
}

/**
 * A run the queue abandoned (restart, removed PR, urgent PR, timeout): a CI building its test branch
 * can stop. Other test-run events are for the metrics only.
 */
export function testRunWebhookEvent(event: TestRunLifecycleEvent): WebhookEvent | undefined {
  if (event.type !== TestRunEventType.CANCELLED || event.queue === undefined) return undefined;
  return queueScopedEvent({ ...event, ...event.queue }, "test_run.cancelled", {
    test_run_id: event.testRunId,
    kind: runKindOfWire(event.kind),
    test_branch: event.testBranch || null,
    pr_numbers: [...event.prNumbers],
    tested_pr_numbers: [...event.testedPrNumbers],
    reason: event.reason || null,
  });
}

/**
 * The queue stopped starting runs because tests fail on its target itself (issue 26): whoever owns the target
 * should fix it; no PR is blamed. Other queue events are for the open pages only.
 */
export function queueWebhookEvent(event: QueueLifecycleEvent): WebhookEvent | undefined {
  if (event.type !== QueueEventType.TARGET_BROKEN || event.queue === undefined) return undefined;
  const broken = event.targetBroken;
  return queueScopedEvent({ ...event, ...event.queue }, "queue.target_broken", {
    test_id: broken?.testId || null,
    test_name: broken?.testName || null,
    since: broken?.since ? broken.since.toISOString() : null,
    reason: broken?.reason || null,
  });
}

/** What every event about one queue carries: its ids, then the payload's type, time, repository and target. */
function queueScopedEvent(
  source: {
    eventId: string;
    org: string;
    timestamp?: Date | undefined;
    repo?: RepoRef | undefined;
    targetBranch: string;
  },
  type: WebhookEventType,
  fields: Record<string, unknown>,
): WebhookEvent {
  return {
    eventId: source.eventId,
    org: source.org,
    type,
    payload: {
      type,
      timestamp: isoOf(source.timestamp),
      repository: repositoryOf(source.repo),
      target_branch: source.targetBranch,
      ...fields,
    },
  };
}

export function testStatusWebhookEvent(event: TestStatusChanged): WebhookEvent {
  const type = "test_case.status_changed";
  return {
    eventId: event.eventId,
    org: event.org,
    type,
    payload: {
      type,
      timestamp: isoOf(event.timestamp),
      repository: repositoryOf(event.repo),
      test_case: {
        id: event.testId,
        name: event.name,
        variant: event.variant,
        file_path: event.filePath ?? null,
        classname: event.classname ?? null,
        parent: event.parent ?? null,
        html_url: event.htmlUrl || null,
        codeowners: [...event.codeowners],
        quarantined: event.quarantined,
      },
      // Test statuses are written lowercase, as the HTTP API writes them.
      status: testStatusName(event.newStatus),
      previous_status: testStatusName(event.oldStatus),
      reason: event.reason,
    },
  };
}

function testStatusName(status: TestStatus): string {
  return (TestStatus[status] ?? "UNSPECIFIED").toLowerCase();
}

function repositoryOf(repo: RepoRef | undefined): { host: string; owner: string; name: string } {
  return { host: repo?.host ?? "", owner: repo?.owner ?? "", name: repo?.name ?? "" };
}

function isoOf(date: Date | undefined): string | null {
  return date === undefined ? null : date.toISOString();
}
