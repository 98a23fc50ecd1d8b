import type { Collection, Store, StoreFilter } from "@mainline/kit/store/index";
import type { ImpactedTargets, PrState, PullRequestEntry, PullRequestFacts } from "../domain/index.js";

/** What the code host last said about a pull request (from pull_request events), per repository. */
export interface PullRequestFactsDocument {
  _id: string;
  org: string;
  repoKey: string;
  number: number;
  /** Absent while only impacted targets are known. */
  facts: PullRequestFacts;
  merged: boolean;
  /** Impacted targets uploaded for a head sha, possibly before the PR was submitted. */
  targets?: ImpactedTargets;
  updatedAt: string;
}

/** A queue entry after it left the queue (merged, failed, cancelled), for lookups by number or branch. */
export interface FinishedEntryDocument {
  _id: string;
  queueKey: string;
  number: number;
  headBranch: string;
  endedAt: number;
  entry: PullRequestEntry;
}

/** Which finished entries of a queue to list: by end state, and a PR number, head branch or author. */
export interface FinishedQuery {
  states: readonly PrState[];
  /** Matches the PR number when it is one, else the head branch or the author, exactly. */
  search?: { number?: number; text: string };
  limit: number;
  offset: number;
}

export class PullRequestRecords {
  private constructor(
    private readonly facts: Collection<PullRequestFactsDocument>,
    private readonly finished: Collection<FinishedEntryDocument>,
  ) {}

  static async open(store: Store): Promise<PullRequestRecords> {
    const facts = store.collection<PullRequestFactsDocument>("pull_request_facts");
    await facts.createIndex({ org: 1, repoKey: 1, "facts.headBranch": 1 });
    const finished = store.collection<FinishedEntryDocument>("finished_entries");
    await finished.createIndex({ queueKey: 1, number: 1 });
    await finished.createIndex({ queueKey: 1, headBranch: 1 });
    // The queue page's history: one queue's entries, the latest first.
    await finished.createIndex({ queueKey: 1, endedAt: -1 });
    await finished.createIndex({ queueKey: 1, "entry.facts.author": 1 });
    return new PullRequestRecords(facts, finished);
  }

  async recordFacts(
    org: string,
    repoKey: string,
    number: number,
    facts: PullRequestFacts,
    merged: boolean,
    now: Date,
  ): Promise<void> {
    await this.facts.updateOne(
      { _id: `${org}#${repoKey}#${number}` },
      { $set: { org, repoKey, number, facts, merged, updatedAt: now.toISOString() } },
      { upsert: true },
    );
  }

  /** Targets may arrive before any facts; the document then holds targets alone until facts come. */
  async recordTargets(
    org: string,
    repoKey: string,
    number: number,
    targets: ImpactedTargets,
    now: Date,
  ): Promise<void> {
    await this.facts.updateOne(
      { _id: `${org}#${repoKey}#${number}` },
      { $set: { targets, updatedAt: now.toISOString() }, $setOnInsert: { org, repoKey, number } },
      { upsert: true },
    );
  }

  async factsOf(
    org: string,
    repoKey: string,
    number: number,
  ): Promise<{ facts?: PullRequestFacts; targets?: ImpactedTargets; merged?: boolean } | null> {
    return this.facts.findOne({ _id: `${org}#${repoKey}#${number}` });
  }

  async factsByBranch(org: string, repoKey: string, headBranch: string): Promise<PullRequestFactsDocument[]> {
    return this.facts.find({ org, repoKey, "facts.headBranch": headBranch });
  }

  /** Idempotent: the id is the queue entry's, so recording the same end twice changes nothing. */
  async recordFinished(queueKey: string, entry: PullRequestEntry): Promise<void> {
    const _id = `${queueKey}#${entry.id}`;
    const doc: FinishedEntryDocument = {
      _id,
      queueKey,
      number: entry.number,
      headBranch: entry.facts?.headBranch ?? "",
      endedAt: entry.stateChangedAt,
      entry,
    };
    await this.finished.replaceOne({ _id }, doc, { upsert: true });
  }

  async latestFinished(queueKey: string, number: number): Promise<FinishedEntryDocument | null> {
    return this.finished.findOne({ queueKey, number }, { sort: { endedAt: -1 } });
  }

  async finishedByBranch(queueKey: string, headBranch: string): Promise<FinishedEntryDocument[]> {
    return this.finished.find({ queueKey, headBranch }, { sort: { endedAt: -1 } });
  }

  async finishedSince(queueKey: string, since: number): Promise<FinishedEntryDocument[]> {
    return this.finished.find({ queueKey, endedAt: { $gte: since } }, { sort: { endedAt: 1 } });
  }

  /** One page of a queue's finished entries, the latest first, and how many match in all. */
  async pageFinished(
    queueKey: string,
    query: FinishedQuery,
  ): Promise<{ docs: FinishedEntryDocument[]; total: number }> {
    const inStates = { queueKey, "entry.state": { $in: [...query.states] } };
    if (query.search) return this.searchFinished(inStates, query.search, query);
    const [docs, total] = await Promise.all([
      this.finished.find(inStates, { sort: LATEST_FIRST, skip: query.offset, limit: query.limit }),
      this.finished.countDocuments(inStates),
    ]);
    return { docs, total };
  }

  /**
   * A search is one indexed lookup per thing it may name (number, head branch, author), merged here: each
   * matches few entries, where one `$or` filter would be evaluated against every entry of the queue.
   */
  private async searchFinished(
    inStates: StoreFilter<FinishedEntryDocument>,
    search: NonNullable<FinishedQuery["search"]>,
    page: { offset: number; limit: number },
  ): Promise<{ docs: FinishedEntryDocument[]; total: number }> {
    const lookups: StoreFilter<FinishedEntryDocument>[] = [
      { ...inStates, headBranch: search.text },
      { ...inStates, "entry.facts.author": search.text },
    ];
    if (search.number !== undefined) lookups.push({ ...inStates, number: search.number });
    const found = new Map<string, FinishedEntryDocument>();
    for (const docs of await Promise.all(lookups.map((f) => this.finished.find(f))))
      for (const doc of docs) found.set(doc._id, doc);
    const all = [...found.values()].sort((a, b) => b.endedAt - a.endedAt || (a._id < b._id ? -1 : 1));
    return { docs: all.slice(page.offset, page.offset + page.limit), total: all.length };
  }
}

// _id breaks ties between entries that ended in the same millisecond, so pages never overlap.
const LATEST_FIRST = { endedAt: -1, _id: 1 } as const;
