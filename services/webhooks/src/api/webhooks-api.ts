import { randomUUID } from "node:crypto";
import type { JetStreamClient, JetStreamManager } from "nats";
import { FailedPreconditionError, InvalidArgumentError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { Delivery, Subscription as SubscriptionMessage, WebhooksServer } from "@mainline/proto/webhooks";
import { isWebhookEventType, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from "../domain/event-types.js";
import { generateSecret, secretKey, webhookIdOf } from "../domain/signing.js";
import type { Subscription } from "../domain/subscription.js";
import { enqueueDelivery, removeDeliveryQueue } from "../bus/delivery-stream.js";
import type { SubscriptionConsumers } from "../delivery/subscription-consumers.js";
import type { UrlGuard } from "../delivery/url-guard.js";
import type { DeliveryLog, DeliveryRecord } from "../store/delivery-log.js";
import type { GitHubOutbox } from "../store/github-outbox.js";
import { githubCommentsApi } from "./github-comments-api.js";
import type { SubscriptionRepository } from "../store/subscription-repository.js";

export interface WebhooksApiDeps {
  subscriptions: SubscriptionRepository;
  log: DeliveryLog;
  guard: UrlGuard;
  consumers: SubscriptionConsumers;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Absent when no GitHub App is configured. */
  githubOutbox?: GitHubOutbox;
  now?: () => Date;
}

const MAX_DESCRIPTION = 200;
const DEFAULT_DELIVERIES = 50;
const MAX_DELIVERIES = 500;

/** The Webhooks gRPC service. Every call is scoped by `org`, which the gateway takes from the API token. */
export function webhooksApi(deps: WebhooksApiDeps): AsyncImplementation<WebhooksServer> {
  const now = deps.now ?? (() => new Date());
  return {
    ...githubCommentsApi({ outbox: deps.githubOutbox, now }),
    async createSubscription(request) {
      const org = requireOrg(request.org);
      const eventTypes = [...new Set(request.eventTypes)];
      for (const type of eventTypes) {
        if (!isWebhookEventType(type)) {
          throw new InvalidArgumentError(
            "eventTypes",
            `"${type}" is not an event type; use any of ${WEBHOOK_EVENT_TYPES.join(", ")}`,
          );
        }
      }
      if (request.secret !== undefined) secretKey(request.secret);
      if ((request.description?.length ?? 0) > MAX_DESCRIPTION) {
        throw new InvalidArgumentError("description", `must be at most ${MAX_DESCRIPTION} characters`);
      }
      const url = await deps.guard.check(request.url);
      const subscription = await deps.subscriptions.create(
        {
          org,
          url: url.toString(),
          eventTypes,
          secret: request.secret ?? generateSecret(),
          ...(request.description !== undefined && { description: request.description }),
        },
        now(),
      );
      await deps.consumers.start(subscription._id);
      return { subscription: toMessage(subscription, true) };
    },

    async listSubscriptions(request) {
      const found = await deps.subscriptions.list(requireOrg(request.org));
      return { subscriptions: found.map((s) => toMessage(s, false)) };
    },

    async deleteSubscription(request) {
      const org = requireOrg(request.org);
      const subscription = await deps.subscriptions.get(org, request.subscriptionId);
      await deps.consumers.stop(subscription._id);
      await removeDeliveryQueue(deps.jsm, subscription._id);
      await deps.subscriptions.delete(org, subscription._id);
      await deps.log.forget(subscription._id);
      return {};
    },

    async sendTestEvent(request) {
      const subscription = await deps.subscriptions.get(requireOrg(request.org), request.subscriptionId);
      if (subscription.disabled) {
        throw new FailedPreconditionError(
          `webhook subscription ${subscription._id} is disabled; re-enable it before sending a test event`,
        );
      }
      const eventId = `test_${randomUUID()}`;
      const webhookId = webhookIdOf(subscription._id, eventId);
      const at = now();
      // Queued behind the subscription's pending events like any other: it shows the path really works.
      await enqueueDelivery(deps.js, {
        webhookId,
        subscriptionId: subscription._id,
        org: subscription.org,
        eventType: TEST_EVENT_TYPE,
        eventId,
        body: JSON.stringify({
          type: TEST_EVENT_TYPE,
          timestamp: at.toISOString(),
          subscription_id: subscription._id,
        }),
        createdAt: at,
      });
      return { eventId: webhookId };
    },

    async listDeliveries(request) {
      const subscription = await deps.subscriptions.get(requireOrg(request.org), request.subscriptionId);
      const limit = request.limit === 0 ? DEFAULT_DELIVERIES : request.limit;
      if (limit > MAX_DELIVERIES) {
        throw new InvalidArgumentError("limit", `must be from 1 to ${MAX_DELIVERIES}`);
      }
      const records = await deps.log.recent(subscription._id, limit);
      return { deliveries: records.map(toDelivery) };
    },

    async enableSubscription(request) {
      const subscription = await deps.subscriptions.enable(
        requireOrg(request.org),
        request.subscriptionId,
        now(),
      );
      await deps.consumers.start(subscription._id);
      return { subscription: toMessage(subscription, false) };
    },
  };
}

function requireOrg(org: string): string {
  if (org.trim() === "") throw new InvalidArgumentError("org", "must name the caller's organisation");
  return org;
}

function toMessage(s: Subscription, withSecret: boolean): SubscriptionMessage {
  return {
    id: s._id,
    org: s.org,
    url: s.url,
    eventTypes: s.eventTypes,
    secret: withSecret ? s.secret : "",
    ...(s.description !== undefined && { description: s.description }),
    disabled: s.disabled,
    disabledReason: s.disabledReason,
    createdAt: s.createdAt,
    ...(s.disabledAt !== undefined && { disabledAt: s.disabledAt }),
  };
}

function toDelivery(r: DeliveryRecord): Delivery {
  return {
    id: r._id,
    subscriptionId: r.subscriptionId,
    eventId: r.webhookId,
    eventType: r.eventType,
    time: r.time,
    attempt: r.attempt,
    ...(r.statusCode !== undefined && { statusCode: r.statusCode }),
    ...(r.error !== undefined && { error: r.error }),
    durationMs: r.durationMs,
    succeeded: r.succeeded,
  };
}
