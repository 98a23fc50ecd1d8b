import { z } from "zod";

/** The webhook-subscription answers of the HTTP API. */

export const subscriptionResponse = z.object({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.string()).describe("Empty: every event type"),
  description: z.string().optional(),
  disabled: z.boolean(),
  disabledReason: z.string().describe("Why deliveries stopped; empty when enabled"),
  createdAt: z.string(),
  disabledAt: z.string().optional(),
});

export const createdSubscriptionResponse = z.object({
  subscription: subscriptionResponse.extend({
    secret: z.string().describe("The signing secret (whsec_...); shown only in this response"),
  }),
});

export const deliveryResponse = z.object({
  id: z.string(),
  eventId: z.string().describe("The webhook-id header of the event"),
  eventType: z.string(),
  time: z.string(),
  attempt: z.number(),
  statusCode: z.number().nullable().describe("Null when no HTTP response arrived"),
  error: z.string().nullable(),
  durationMs: z.number(),
  succeeded: z.boolean(),
});
