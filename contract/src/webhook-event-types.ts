/**
 * The webhook event types a subscription may filter on (compat-notes "Webhook events"). The test event
 * ("webhook.test") is not among them: it is sent to one subscription on request, whatever its filter.
 */
export const WEBHOOK_EVENT_TYPES = [
  "pull_request.submitted",
  "pull_request.queued",
  "pull_request.testing",
  "pull_request.merged",
  "pull_request.failed",
  "pull_request.canceled",
  "pull_request_batch.pending_failure",
  "pull_request_batch.merged",
  "test_run.cancelled",
  "test_case.status_changed",
  "queue.target_broken",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const KNOWN = new Set<string>(WEBHOOK_EVENT_TYPES);

export function isWebhookEventType(value: string): value is WebhookEventType {
  return KNOWN.has(value);
}

/**
 * The webhook event of a PR lifecycle event, by the event's word on the wire (PullRequestEventType: SUBMITTED,
 * QUEUED, TESTING, MERGED, FAILED, CANCELED); undefined for the transitions published for the metrics only.
 */
export function pullRequestWebhookEventType(word: string): WebhookEventType | undefined {
  const type = `pull_request.${word.toLowerCase()}`;
  return isWebhookEventType(type) ? type : undefined;
}

/** The webhook event of a batch lifecycle event (BatchEventType: PENDING_FAILURE, MERGED), when it has one. */
export function batchWebhookEventType(word: string): WebhookEventType | undefined {
  const type = `pull_request_batch.${word.toLowerCase()}`;
  return isWebhookEventType(type) ? type : undefined;
}
