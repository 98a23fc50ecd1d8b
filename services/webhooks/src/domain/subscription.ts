/** A webhook endpoint of one organisation, as stored. */
export interface Subscription {
  _id: string;
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
