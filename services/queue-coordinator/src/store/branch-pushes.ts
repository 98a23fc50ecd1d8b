import type { Collection, Store } from "@mainline/kit/store/index";
import { AlreadyExistsError } from "@mainline/kit/errors/index";

interface PushDocument {
  /** queue key + the head the push left the branch at. */
  _id: string;
  queueKey: string;
  at: string;
}

/** Pushes to target branches already acted on, so a redelivered push event changes nothing twice. */
export class BranchPushes {
  private constructor(
    private readonly docs: Collection<PushDocument>,
    private readonly clock: () => Date,
  ) {}

  static async open(store: Store, clock: () => Date): Promise<BranchPushes> {
    const docs = store.collection<PushDocument>("branch_pushes");
    await docs.createIndex({ queueKey: 1 });
    return new BranchPushes(docs, clock);
  }

  async seen(queueKey: string, head: string): Promise<boolean> {
    return (await this.docs.findOne({ _id: `${queueKey}#${head}` })) !== null;
  }

  /** After acting on the push: a crash before this makes the redelivery act again, never twice after it. */
  async record(queueKey: string, head: string): Promise<void> {
    try {
      await this.docs.insertOne({ _id: `${queueKey}#${head}`, queueKey, at: this.clock().toISOString() });
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
    }
  }
}
