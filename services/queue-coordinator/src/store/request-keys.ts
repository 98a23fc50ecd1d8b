import type { Collection, Store } from "@mainline/kit/store/index";
import { AlreadyExistsError } from "@mainline/kit/errors/index";

interface RequestKeyDocument {
  /** queue key + command + the caller's idempotency key (a code-host delivery id). */
  _id: string;
  queueKey: string;
  at: string;
}

/**
 * Idempotency keys of submit and cancel requests. A key is written before the command is applied: a caller that
 * died after the queue changed (its answer lost) sends the same key again, and finding it here turns "already
 * in the queue" / "not in the queue" into the answer the first attempt would have had.
 */
export class RequestKeys {
  private constructor(private readonly docs: Collection<RequestKeyDocument>) {}

  static async open(store: Store): Promise<RequestKeys> {
    const docs = store.collection<RequestKeyDocument>("request_keys");
    await docs.createIndex({ queueKey: 1 });
    return new RequestKeys(docs);
  }

  /** Records the key; true when it had been recorded before (this is a repeated request). */
  async repeated(queueKey: string, command: "submit" | "cancel", key: string, now: Date): Promise<boolean> {
    try {
      await this.docs.insertOne({ _id: `${queueKey}#${command}#${key}`, queueKey, at: now.toISOString() });
      return false;
    } catch (error) {
      if (error instanceof AlreadyExistsError) return true;
      throw error;
    }
  }
}
