import { z } from "zod";
import { LIMITS } from "./limits.js";

/**
 * Shapes of the webhook subscription endpoints. Event type names and secrets are checked by the webhooks
 * service (it owns the list), which answers 400 naming the field.
 */
const subscriptionId = z
  .string({ error: "must be a string (a webhook subscription id, whs_...)" })
  .trim()
  .min(1, "must not be empty")
  .max(LIMITS.id, `must be at most ${LIMITS.id} characters`);

export const createSubscriptionRequest = z.object({
  url: z
    .string({ error: "must be a string (an http or https URL)" })
    .trim()
    .min(1, "must not be empty")
    .max(2048, "must be at most 2048 characters"),
  eventTypes: z
    .array(
      z.string({ error: "must be event type names" }).max(100, "must hold names of at most 100 characters"),
      {
        error: "must be a list of event type names",
      },
    )
    .max(50, "must hold at most 50 event types")
    .optional(),
  secret: z
    .string({ error: "must be a string (whsec_ followed by base64)" })
    .max(256, "must be at most 256 characters")
    .optional(),
  description: z.string().max(200, "must be at most 200 characters").optional(),
});

export const subscriptionRef = z.object({ id: subscriptionId });

export const listDeliveriesQuery = z.object({
  subscriptionId,
  limit: z.coerce
    .number({ error: "must be an integer from 1 to 500" })
    .int("must be an integer from 1 to 500")
    .min(1, "must be an integer from 1 to 500")
    .max(500, "must be an integer from 1 to 500")
    .optional(),
});

export { createdSubscriptionResponse, deliveryResponse, subscriptionResponse } from "@mainline/contract";
