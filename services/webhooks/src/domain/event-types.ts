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
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const TEST_EVENT_TYPE = "webhook.test";

const KNOWN = new Set<string>(WEBHOOK_EVENT_TYPES);

export function isWebhookEventType(value: string): value is WebhookEventType {
  return KNOWN.has(value);
}

/** An empty filter means every event type. */
export function filterAccepts(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.length === 0 || eventTypes.includes(type);
}
