import { createHash, createHmac, randomBytes } from "node:crypto";
import { InvalidArgumentError } from "@mainline/kit/errors/index";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_<base64 bytes>`, and
 * each request carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 over "id.timestamp.body" keyed by the secret's bytes>`.
 */
export const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 24;

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

/** The key bytes of a secret; refuses secrets receivers' libraries could not use. */
export function secretKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) {
    throw new InvalidArgumentError("secret", `must start with ${SECRET_PREFIX} followed by base64`);
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new InvalidArgumentError("secret", `must be ${SECRET_PREFIX} followed by standard base64`);
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length < 24 || key.length > 64) {
    throw new InvalidArgumentError("secret", "must encode 24 to 64 bytes");
  }
  return key;
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

export function signedHeaders(secret: string, webhookId: string, at: Date, body: string): SignedHeaders {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac("sha256", secretKey(secret))
    .update(`${webhookId}.${timestamp}.${body}`)
    .digest("base64");
  return { "webhook-id": webhookId, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}

/**
 * The webhook-id of one event for one subscription. Derived, never random: every attempt and every
 * redelivery after a crash carries the same id, so receivers can drop duplicates by it.
 */
export function webhookIdOf(subscriptionId: string, eventId: string): string {
  const digest = createHash("sha256").update(`${subscriptionId}\n${eventId}`).digest("base64url");
  return `msg_${digest.slice(0, 27)}`;
}
