import { z } from "zod";
import { callUnary } from "@mainline/kit/grpc/index";
import type { Delivery, Subscription } from "@mainline/proto/webhooks";
import { endpoint, type Endpoint } from "../endpoint.js";
import {
  createdSubscriptionResponse,
  createSubscriptionRequest,
  deliveryResponse,
  listDeliveriesQuery,
  subscriptionRef,
  subscriptionResponse,
} from "../schemas/webhooks.js";
import type { Upstreams } from "../../upstream/upstreams.js";

const TAG = "Webhooks";

/** Webhook subscriptions of the caller's organisation: every call is scoped by the token's organisation. */
export function webhookEndpoints(up: Upstreams): Endpoint[] {
  const w = up.webhooks;
  return [
    endpoint({
      method: "post",
      path: "/webhooks/subscriptions",
      operationId: "createWebhookSubscription",
      summary:
        "Subscribe a URL to events; the signing secret is shown in this response only. A create of the same content (a retry) answers with the subscription the first one made",
      tag: TAG,
      access: "org",
      input: createSubscriptionRequest,
      inputIn: "body",
      output: createdSubscriptionResponse,
      status: 201,
      async handle(input, { principal }) {
        const { subscription } = await callUnary(w.createSubscription.bind(w), {
          org: principal.org,
          url: input.url,
          eventTypes: input.eventTypes ?? [],
          ...(input.secret !== undefined && { secret: input.secret }),
          ...(input.description !== undefined && { description: input.description }),
        });
        return { subscription: { ...subscriptionToJson(subscription), secret: subscription?.secret ?? "" } };
      },
    }),
    endpoint({
      method: "get",
      path: "/webhooks/subscriptions",
      operationId: "listWebhookSubscriptions",
      summary: "List the organisation's webhook subscriptions (disabled ones say why)",
      tag: TAG,
      access: "org",
      input: z.object({}),
      inputIn: "query",
      output: z.object({ subscriptions: z.array(subscriptionResponse) }),
      async handle(_input, { principal }) {
        const { subscriptions } = await callUnary(w.listSubscriptions.bind(w), { org: principal.org });
        return { subscriptions: subscriptions.map(subscriptionToJson) };
      },
    }),
    endpoint({
      method: "delete",
      path: "/webhooks/subscriptions",
      operationId: "deleteWebhookSubscription",
      summary: "Delete a webhook subscription and drop its undelivered events",
      tag: TAG,
      access: "org",
      input: subscriptionRef,
      inputIn: "query",
      output: z.object({}),
      async handle(input, { principal }) {
        await callUnary(w.deleteSubscription.bind(w), { org: principal.org, subscriptionId: input.id });
        return {};
      },
    }),
    endpoint({
      method: "post",
      path: "/webhooks/subscriptions/test",
      operationId: "sendWebhookTestEvent",
      summary: 'Send a "webhook.test" event to a subscription, queued behind its pending events',
      tag: TAG,
      access: "org",
      input: subscriptionRef,
      inputIn: "body",
      output: z.object({ eventId: z.string().describe("The webhook-id of the test event") }),
      status: 202,
      async handle(input, { principal }) {
        const { eventId } = await callUnary(w.sendTestEvent.bind(w), {
          org: principal.org,
          subscriptionId: input.id,
        });
        return { eventId };
      },
    }),
    endpoint({
      method: "post",
      path: "/webhooks/subscriptions/enable",
      operationId: "enableWebhookSubscription",
      summary: "Re-enable a disabled subscription; delivery resumes with the event it stopped at",
      tag: TAG,
      access: "org",
      input: subscriptionRef,
      inputIn: "body",
      output: z.object({ subscription: subscriptionResponse }),
      async handle(input, { principal }) {
        const { subscription } = await callUnary(w.enableSubscription.bind(w), {
          org: principal.org,
          subscriptionId: input.id,
        });
        return { subscription: subscriptionToJson(subscription) };
      },
    }),
    endpoint({
      method: "get",
      path: "/webhooks/deliveries",
      operationId: "listWebhookDeliveries",
      summary: "Delivery attempts of a subscription, most recent first",
      tag: TAG,
      access: "org",
      input: listDeliveriesQuery,
      inputIn: "query",
      output: z.object({ deliveries: z.array(deliveryResponse) }),
      async handle(input, { principal }) {
        const { deliveries } = await callUnary(w.listDeliveries.bind(w), {
          org: principal.org,
          subscriptionId: input.subscriptionId,
          limit: input.limit ?? 0,
        });
        return { deliveries: deliveries.map(deliveryToJson) };
      },
    }),
  ];
}

function subscriptionToJson(s: Subscription | undefined): z.infer<typeof subscriptionResponse> {
  return {
    id: s?.id ?? "",
    url: s?.url ?? "",
    eventTypes: s?.eventTypes ?? [],
    ...(s?.description !== undefined && { description: s.description }),
    disabled: s?.disabled ?? false,
    disabledReason: s?.disabledReason ?? "",
    createdAt: (s?.createdAt ?? new Date(0)).toISOString(),
    ...(s?.disabledAt !== undefined && { disabledAt: s.disabledAt.toISOString() }),
  };
}

function deliveryToJson(d: Delivery): z.infer<typeof deliveryResponse> {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    time: (d.time ?? new Date(0)).toISOString(),
    attempt: d.attempt,
    statusCode: d.statusCode ?? null,
    error: d.error ?? null,
    durationMs: d.durationMs,
    succeeded: d.succeeded,
  };
}
