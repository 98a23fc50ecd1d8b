import { randomBytes } from "node:crypto";
import type { Collection, Store } from "@mainline/kit/store/index";
import {
  AlreadyExistsError,
  ConflictError,
  InvalidArgumentError,
  NotFoundError,
} from "@mainline/kit/errors/index";
import { contentKeyOf, LEGACY_CONTENT_KEY_PREFIX, type Subscription } from "../domain/subscription.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Far above the ids we issue (whs_ and 22 characters), and a bound on what a caller can make us look up. */
const MAX_ID_LENGTH = 128;

function checkedId(id: string): string {
  if (id.length > MAX_ID_LENGTH)
    throw new InvalidArgumentError("id", `must be at most ${MAX_ID_LENGTH} characters`);
  return id;
}

function newSubscriptionId(): string {
  let id = "whs_";
  for (const byte of randomBytes(22)) id += ALPHABET[byte % ALPHABET.length];
  return id;
}

export interface NewSubscription {
  org: string;
  url: string;
  eventTypes: string[];
  secret: string;
  /** False when the secret was generated for this call (not chosen by the caller). */
  secretChosen: boolean;
  description?: string;
}

/** A created subscription, or the one an identical earlier create made (a retried create). */
export interface CreatedSubscription {
  subscription: Subscription;
  created: boolean;
}

/** Tries of an insert that meets another process's write of the same key still on its way. */
const CREATE_TRIES = 20;

/**
 * Subscriptions of every organisation. Every read and write names the organisation, so a caller can
 * never reach another organisation's subscription, not even to learn that it exists.
 */
export class SubscriptionRepository {
  private constructor(private readonly subscriptions: Collection<Subscription>) {}

  static async open(store: Store): Promise<SubscriptionRepository> {
    const subscriptions = store.collection<Subscription>("subscriptions");
    await subscriptions.createIndex({ org: 1, createdAt: 1 });
    // Subscriptions made before the content key existed get one of their own, so none of them clash.
    for (const legacy of await subscriptions.find({ contentKey: { $exists: false } })) {
      await subscriptions.updateOne(
        { _id: legacy._id, contentKey: { $exists: false } },
        { $set: { contentKey: `${LEGACY_CONTENT_KEY_PREFIX}${legacy._id}` } },
      );
    }
    // Enforced by the store across processes: of two replicas handling one retried create, one inserts.
    await subscriptions.createIndex({ contentKey: 1 }, { unique: true });
    return new SubscriptionRepository(subscriptions);
  }

  /**
   * Creates a subscription, or returns the one holding the same content (organisation, URL, event set,
   * description, and the secret when the caller chose it): a client retrying a create after a timeout
   * gets the subscription its first call made, never a second one.
   */
  async create(input: NewSubscription, now: Date): Promise<CreatedSubscription> {
    const contentKey = contentKeyOf(input);
    for (let tries = 1; ; tries++) {
      try {
        return { subscription: await this.insert(input, contentKey, now), created: true };
      } catch (error) {
        if (!(error instanceof AlreadyExistsError) && !(error instanceof ConflictError)) throw error;
        const existing = await this.subscriptions.findOne({ contentKey, org: input.org });
        if (existing !== null) return { subscription: existing, created: false };
        // Deleted since, or the other write is not finished: try again a little later.
        if (tries >= CREATE_TRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25 * tries));
      }
    }
  }

  private async insert(input: NewSubscription, contentKey: string, now: Date): Promise<Subscription> {
    const subscription: Subscription = {
      _id: newSubscriptionId(),
      contentKey,
      org: input.org,
      url: input.url,
      eventTypes: input.eventTypes,
      secret: input.secret,
      ...(input.description !== undefined && { description: input.description }),
      disabled: false,
      disabledReason: "",
      createdAt: now,
      enabledAt: now,
    };
    await this.subscriptions.insertOne(subscription);
    return subscription;
  }

  list(org: string): Promise<Subscription[]> {
    return this.subscriptions.find({ org }, { sort: { createdAt: 1, _id: 1 } });
  }

  /** Every subscription of every organisation: the delivery consumers to run. */
  all(): Promise<Subscription[]> {
    return this.subscriptions.find({});
  }

  /** Enabled subscriptions of an organisation, for fanning an event out. */
  enabledOf(org: string): Promise<Subscription[]> {
    return this.subscriptions.find({ org, disabled: false }, { sort: { createdAt: 1, _id: 1 } });
  }

  /** Not scoped: for the delivery worker, which holds an id from its own stream. */
  byId(id: string): Promise<Subscription | null> {
    return this.subscriptions.findOne({ _id: id });
  }

  async get(org: string, id: string): Promise<Subscription> {
    const found = await this.subscriptions.findOne({ _id: checkedId(id), org });
    if (found === null) throw new NotFoundError(`webhook subscription ${id} does not exist`);
    return found;
  }

  async delete(org: string, id: string): Promise<void> {
    const { deletedCount } = await this.subscriptions.deleteOne({ _id: checkedId(id), org });
    if (deletedCount === 0) throw new NotFoundError(`webhook subscription ${id} does not exist`);
  }

  async disable(id: string, reason: string, now: Date): Promise<void> {
    await this.subscriptions.updateOne(
      { _id: id, disabled: false },
      { $set: { disabled: true, disabledReason: reason, disabledAt: now } },
    );
  }

  async enable(org: string, id: string, now: Date): Promise<Subscription> {
    const updated = await this.subscriptions.findOneAndUpdate(
      { _id: checkedId(id), org },
      { $set: { disabled: false, disabledReason: "", enabledAt: now }, $unset: { disabledAt: "" } },
      { returnDocument: "after" },
    );
    if (updated === null) throw new NotFoundError(`webhook subscription ${id} does not exist`);
    return updated;
  }
}
