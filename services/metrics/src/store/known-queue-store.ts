import { AlreadyExistsError, ConflictError } from "@mainline/kit/errors/index";
import type { Collection, Store } from "@mainline/kit/store/index";
import type { QueueIdentity } from "../domain/queue-identity.js";

type KnownQueuesDocument = { _id: string; queues: QueueIdentity[] };

const ID = "coordinator";

/**
 * The queues the coordinator last reported, shared by the replicas so that every one of them shows an idle
 * queue's zeros, whichever replica asked the coordinator last.
 */
export class KnownQueueStore {
  private constructor(private readonly docs: Collection<KnownQueuesDocument>) {}

  static open(store: Store): KnownQueueStore {
    return new KnownQueueStore(store.collection<KnownQueuesDocument>("known_queues"));
  }

  async all(): Promise<QueueIdentity[]> {
    return (await this.docs.findOne({ _id: ID }))?.queues ?? [];
  }

  /** Last answer wins; a replica that lost the race to another's equally fresh answer leaves it. */
  async replace(queues: QueueIdentity[]): Promise<void> {
    try {
      await this.docs.replaceOne({ _id: ID }, { _id: ID, queues }, { upsert: true });
    } catch (error) {
      if (!(error instanceof ConflictError || error instanceof AlreadyExistsError)) throw error;
    }
  }
}
