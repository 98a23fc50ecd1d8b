/** The webhook event types a subscription may filter on: the contract's (compat-notes "Webhook events"). */
export { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "@mainline/contract";

export const TEST_EVENT_TYPE = "webhook.test";

/** An empty filter means every event type. */
export function filterAccepts(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.length === 0 || eventTypes.includes(type);
}
