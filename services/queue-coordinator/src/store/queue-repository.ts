import { AlreadyExistsError, ConflictError, NotFoundError } from "@mainline/kit/errors/index";
import type { Collection, Store } from "@mainline/kit/store/index";
import type { RepoRef } from "@mainline/proto/common";
import type { InsightsHour, PlannerState } from "../domain/index.js";
import { queueKey, repoKey, type QueueAddress } from "../app/queue-key.js";
import type { OutboxMessage } from "./outbox-message.js";

/**
 * One document per queue: the planner's state and the messages that state change still owes the bus
 * (the outbox), written together so that neither is ever lost without the other (DESIGN rule 4).
 */
export interface QueueDocument {
  _id: string;
  org: string;
  repo: RepoRef;
  repoKey: string;
  targetBranch: string;
  createdAt: string;
  /** Bumped by every write; a write based on an older revision is refused (compare-and-set). */
  revision: number;
  planner: PlannerState;
  outbox: OutboxMessage[];
  /** Numbers lifecycle events deterministically, so a re-published event keeps its id. */
  eventSeq: number;
  /** When time alone next changes something (batch deadline, test timeout); the timekeeper's alarm. */
  wakeAt: number | null;
  /** How long the latest finished main runs took, newest first (see recent-run-durations.ts); absent before. */
  recentRunDurationsMs?: number[];
  /** The hour in progress of the queue's insights (insights-hour.ts), counted with each step; absent before. */
  insights?: InsightsHour | null;
  /** Finished hours not yet written to the insight hours (flushed with the outbox). */
  insightsSealed?: InsightsHour[];
}

export class QueueRepository {
  /** The last document read or written per queue, reused while its revision is current. */
  private readonly cache = new Map<string, QueueDocument>();

  private constructor(private readonly queues: Collection<QueueDocument>) {}

  static async open(store: Store): Promise<QueueRepository> {
    const queues = store.collection<QueueDocument>("queues");
    await queues.createIndex({ org: 1, repoKey: 1 });
    return new QueueRepository(queues);
  }

  async create(address: QueueAddress, planner: PlannerState, now: Date): Promise<QueueDocument> {
    const doc: QueueDocument = {
      _id: queueKey(address),
      org: address.org,
      repo: address.repo,
      repoKey: repoKey(address.repo),
      targetBranch: address.targetBranch,
      createdAt: now.toISOString(),
      revision: 1,
      planner,
      outbox: [],
      eventSeq: 0,
      wakeAt: null,
    };
    try {
      await this.queues.insertOne(doc);
    } catch (error) {
      if (error instanceof AlreadyExistsError) {
        throw new AlreadyExistsError(
          `a queue for ${address.targetBranch} of ${repoKey(address.repo)} already exists`,
        );
      }
      throw error;
    }
    this.cache.set(doc._id, doc);
    return doc;
  }

  async get(address: QueueAddress, fresh = false): Promise<QueueDocument> {
    const key = queueKey(address);
    const cached = this.cache.get(key);
    if (cached && !fresh) return cached;
    const doc = await this.queues.findOne({ _id: key });
    if (!doc)
      throw new NotFoundError(`no queue for branch ${address.targetBranch} of ${repoKey(address.repo)}`);
    this.cache.set(key, doc);
    return doc;
  }

  /** A queue by its store key (a test run record names its queue only by key). */
  async byKey(key: string): Promise<QueueDocument | null> {
    const doc = await this.queues.findOne({ _id: key });
    if (doc) this.cache.set(key, doc);
    return doc;
  }

  /** Writes `next` if the stored revision is still `next.revision - 1`; ConflictError otherwise. */
  async save(next: QueueDocument): Promise<void> {
    const result = await this.queues.replaceOne({ _id: next._id, revision: next.revision - 1 }, next);
    if (result.matchedCount === 0) {
      this.cache.delete(next._id);
      throw new ConflictError(`queue ${next._id} was changed by another writer`);
    }
    this.cache.set(next._id, next);
  }

  async delete(doc: QueueDocument): Promise<void> {
    const result = await this.queues.deleteOne({ _id: doc._id, revision: doc.revision });
    this.cache.delete(doc._id);
    if (result.deletedCount === 0) throw new ConflictError(`queue ${doc._id} was changed by another writer`);
  }

  async list(org: string, repo?: RepoRef): Promise<QueueDocument[]> {
    const docs = await this.queues.find(repo ? { org, repoKey: repoKey(repo) } : { org }, {
      sort: { _id: 1 },
    });
    for (const doc of docs) this.cache.set(doc._id, doc);
    return docs;
  }

  async all(): Promise<QueueDocument[]> {
    return this.queues.find({}, { sort: { _id: 1 } });
  }
}
