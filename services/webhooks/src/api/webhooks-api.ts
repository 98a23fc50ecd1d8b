import { randomUUID } from "node:crypto";
import type { JetStreamClient, JetStreamManager } from "nats";
import { FailedPreconditionError } from "@mainline/kit/errors/index";
import type { AsyncImplementation } from "@mainline/kit/grpc/index";
import type { Delivery, Subscription as SubscriptionMessage, WebhooksServer } from "@mainline/proto/webhooks";
import { TEST_EVENT_TYPE } from "../domain/event-types.js";
import { generateSecret, webhookIdOf } from "../domain/signing.js";
import type { Subscription } from "../domain/subscription.js";
import { enqueueDelivery, removeDeliveryQueue } from "../bus/delivery-stream.js";
import type { SubscriptionConsumers } from "../delivery/subscription-consumers.js";
import type { UrlGuard } from "../delivery/url-guard.js";
import type { DeliveryLog, DeliveryRecord } from "../store/delivery-log.js";
import type { GitHubOutbox } from "../store/github-outbox.js";
import {
  parseCreateSubscription,
  parseListDeliveries,
  parseSubscription,
  requireOrg,
} from "./command-parser.js";
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

/**
 * The Webhooks gRPC service. Every call is scoped by `org`, which the gateway takes from the API token; each
 * subscription call is parsed once (command-parser.ts).
 */
export function webhooksApi(deps: WebhooksApiDeps): AsyncImplementation<WebhooksServer> {
  const now = deps.now ?? (() => new Date());
  return {
    ...githubCommentsApi({ outbox: deps.githubOutbox, now }),
    async createSubscription(request) {
      const { org, eventTypes, secret, description, ...asked } = parseCreateSubscription(request);
      const url = await deps.guard.check(asked.url);
      const { subscription } = await deps.subscriptions.create(
        {
          org,
          url: url.toString(),
          eventTypes,
          secret: secret ?? generateSecret(),
          secretChosen: secret !== undefined,
          ...(description !== undefined && { description }),
        },
        now(),
      );
      // A retried create gets the secret again: its first answer, which carried it, may never have arrived.
      if (!subscription.disabled) await deps.consumers.start(subscription._id);
      return { subscription: toMessage(subscription, true) };
    },

    async listSubscriptions(request) {
      const found = await deps.subscriptions.list(requireOrg(request.org));
      return { subscriptions: found.map((s) => toMessage(s, false)) };
    },

    async deleteSubscription(request) {
      const { org, subscriptionId } = parseSubscription(request);
      const subscription = await deps.subscriptions.get(org, subscriptionId);
      await deps.consumers.stop(subscription._id);
      await removeDeliveryQueue(deps.jsm, subscription._id);
      await deps.subscriptions.delete(org, subscription._id);
      await deps.log.forget(subscription._id);
      return {};
    },

    async sendTestEvent(request) {
      const { org, subscriptionId } = parseSubscription(request);
      const subscription = await deps.subscriptions.get(org, subscriptionId);
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
      const { org, subscriptionId, limit } = parseListDeliveries(request);
      const subscription = await deps.subscriptions.get(org, subscriptionId);
      const records = await deps.log.recent(subscription._id, limit);
      return { deliveries: records.map(toDelivery) };
    },

    async enableSubscription(request) {
      const { org, subscriptionId } = parseSubscription(request);
      const subscription = await deps.subscriptions.enable(org, subscriptionId, now());
      await deps.consumers.start(subscription._id);
      return { subscription: toMessage(subscription, false) };
    },
  };
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
