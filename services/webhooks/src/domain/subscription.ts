import { createHash } from "node:crypto";

/** A webhook endpoint of one organisation, as stored. */
export interface Subscription {
  _id: string;
  /** Unique: a digest of what the create call gave (see contentKeyOf), so a retried create finds it. */
  contentKey: string;
  org: string;
  url: string;
  /** Empty: every event type. */
  eventTypes: string[];
  /** `whsec_...`; kept to sign every delivery, returned to the user only when created. */
  secret: string;
  description?: string;
  disabled: boolean;
  disabledReason: string;
  createdAt: Date;
  disabledAt?: Date;
  /** Attempts made before this moment do not count toward the retry schedule (set on re-enable). */
  enabledAt: Date;
}

/** Subscription ids become NATS subject tokens and consumer names: letters and digits only after the prefix. */
export const SUBSCRIPTION_ID = /^whs_[A-Za-z0-9]{10,40}$/;

/** The content key of subscriptions made before content keys existed: their own id, so none clash. */
export const LEGACY_CONTENT_KEY_PREFIX = "legacy:";

/**
 * What makes two creates the same: organisation, URL, event set (in any order), description, and the
 * secret when the caller chose one (a generated secret differs on every call, so it cannot count). Two
 * subscriptions to one URL stay possible: give them different event sets, descriptions or secrets
 * (rotating a secret: create the new subscription, then delete the old one).
 */
export function contentKeyOf(input: {
  org: string;
  url: string;
  eventTypes: readonly string[];
  secret: string;
  secretChosen: boolean;
  description?: string;
}): string {
  const content = JSON.stringify([
    input.org,
    input.url,
    [...new Set(input.eventTypes)].sort(),
    input.description ?? null,
    input.secretChosen ? input.secret : null,
  ]);
  return `v1:${createHash("sha256").update(content).digest("base64url")}`;
}
