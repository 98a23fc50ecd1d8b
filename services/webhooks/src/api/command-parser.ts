import { InvalidArgumentError } from "@mainline/kit/errors/index";
import type { CreateSubscriptionRequest, ListDeliveriesRequest } from "@mainline/proto/webhooks";
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../domain/event-types.js";
import { secretKey } from "../domain/signing.js";

/**
 * The webhooks service's command parser for its subscription calls: each gRPC request becomes a typed command,
 * checked once here; errors name the field and the rule. (The URL's guard resolves the host, so it is I/O and
 * runs in the handler; the GitHub calls of github-comments-api.ts check their own requests.)
 */

const MAX_DESCRIPTION = 200;
const DEFAULT_DELIVERIES = 50;
const MAX_DELIVERIES = 500;

export function requireOrg(org: string): string {
  if (org.trim() === "") throw new InvalidArgumentError("org", "must name the caller's organisation");
  return org;
}

export interface CreateSubscriptionCommand {
  org: string;
  /** Not yet checked by the URL guard. */
  url: string;
  /** Empty: every event type. */
  eventTypes: WebhookEventType[];
  secret?: string;
  description?: string;
}

export function parseCreateSubscription(request: CreateSubscriptionRequest): CreateSubscriptionCommand {
  const org = requireOrg(request.org);
  const eventTypes = [...new Set(request.eventTypes)].map((type) => {
    if (!isWebhookEventType(type)) {
      throw new InvalidArgumentError(
        "eventTypes",
        `"${type}" is not an event type; use any of ${WEBHOOK_EVENT_TYPES.join(", ")}`,
      );
    }
    return type;
  });
  if (request.secret !== undefined) secretKey(request.secret);
  if ((request.description?.length ?? 0) > MAX_DESCRIPTION) {
    throw new InvalidArgumentError("description", `must be at most ${MAX_DESCRIPTION} characters`);
  }
  return {
    org,
    url: request.url,
    eventTypes,
    ...(request.secret !== undefined && { secret: request.secret }),
    ...(request.description !== undefined && { description: request.description }),
  };
}

/** Delete, send a test event, enable: one subscription of the caller's organisation. */
export function parseSubscription(request: { org: string; subscriptionId: string }): {
  org: string;
  subscriptionId: string;
} {
  return { org: requireOrg(request.org), subscriptionId: request.subscriptionId };
}

export function parseListDeliveries(request: ListDeliveriesRequest): {
  org: string;
  subscriptionId: string;
  limit: number;
} {
  const org = requireOrg(request.org);
  const limit = request.limit === 0 ? DEFAULT_DELIVERIES : request.limit;
  if (limit > MAX_DELIVERIES) throw new InvalidArgumentError("limit", `must be from 1 to ${MAX_DELIVERIES}`);
  return { org, subscriptionId: request.subscriptionId, limit };
}
