import type { Collection, Store } from "@mainline/kit/store/index";
import type { ImpactedTargets, PullRequestEntry, PullRequestFacts } from "../domain/index.js";

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
}
