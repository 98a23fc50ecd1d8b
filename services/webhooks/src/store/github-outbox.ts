import { AlreadyExistsError } from "@mainline/kit/errors/index";
import type { Collection, Store } from "@mainline/kit/store/index";
import type { CheckRunView } from "../domain/github/pull-request-check.js";

export interface RepoTarget {
  host: string;
  owner: string;
  name: string;
}

/**
 * One thing Mainline owes GitHub, stored before it is attempted (the outbox): the check run of one PR head,
 * which converges on its latest view, or one comment. A call stays pending until GitHub has it, however often
 * the process dies or GitHub refuses for now.
 */
export interface GitHubCall {
  _id: string;
  kind: "check-run" | "comment";
  org: string;
  repo: RepoTarget;
  prNumber: number;
  /** check-run: the PR head it is on, what it should say, and GitHub's id once created. */
  headSha?: string;
  view?: CheckRunView;
  detailsUrl?: string;
  checkRunId?: number;
  /** comment: the text, and GitHub's id once posted. */
  body?: string;
  commentId?: number;
  /** The events-stream sequence the view comes from: an older event never overwrites a newer view. */
  version: number;
  pending: boolean;
  nextAttemptAt: Date;
  /** Attempts at the current version (a claim counts one). */
  attempts: number;
  /** Claims ever made: above 1, an earlier attempt may have reached GitHub before its process died. */
  claims?: number;
  lastError?: string;
  /** Set when GitHub refused for good or the attempts ran out. */
  gaveUpAt?: Date;
  createdAt: Date;
  updatedAt: Date;
}

export type CallTarget = Pick<GitHubCall, "org" | "repo" | "prNumber">;

export class GitHubOutbox {
  private listeners: (() => void)[] = [];

  private constructor(private readonly calls: Collection<GitHubCall>) {}

  static async open(store: Store): Promise<GitHubOutbox> {
    const calls = store.collection<GitHubCall>("github_calls");
    await calls.createIndex({ pending: 1, nextAttemptAt: 1 });
    await calls.createIndex({ org: 1, updatedAt: -1 });
    return new GitHubOutbox(calls);
  }

  /** Called after every write that makes a call due, so the sender need not wait for its next poll. */
  onDue(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * The check run of a PR head should now say `view`. Idempotent, and an event older than the stored view
   * (a redelivery after a newer event was handled) changes nothing.
   */
  async setCheckRun(
    target: CallTarget,
    headSha: string,
    view: CheckRunView,
    detailsUrl: string,
    version: number,
    now: Date,
  ): Promise<boolean> {
    const _id = checkRunKey(target, headSha);
    try {
      await this.calls.findOneAndUpdate(
        { _id, version: { $lt: version } },
        {
          $set: { view, detailsUrl, version, pending: true, nextAttemptAt: now, attempts: 0, updatedAt: now },
          $unset: { lastError: "", gaveUpAt: "" },
          $setOnInsert: { kind: "check-run", ...target, headSha, createdAt: now },
        },
        { upsert: true },
      );
    } catch (error) {
      // The stored view is from this event or a newer one: the upsert met the existing document.
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
    this.notify();
    return true;
  }

  /** Queues a comment once per key; false when the key was queued before. */
  async addComment(key: string, target: CallTarget, body: string, now: Date): Promise<boolean> {
    try {
      await this.calls.insertOne({
        _id: `comment:${key}`,
        kind: "comment",
        ...target,
        body,
        version: 1,
        pending: true,
        nextAttemptAt: now,
        attempts: 0,
        createdAt: now,
        updatedAt: now,
      });
    } catch (error) {
      if (error instanceof AlreadyExistsError) return false;
      throw error;
    }
    this.notify();
    return true;
  }

  /**
   * Takes the most overdue call for `leaseMs`: another sender (or this one after a crash) takes it again only
   * when the lease runs out without an outcome.
   */
  claimDue(now: Date, leaseMs: number): Promise<GitHubCall | null> {
    return this.calls.findOneAndUpdate(
      { pending: true, nextAttemptAt: { $lte: now } },
      {
        $set: { nextAttemptAt: new Date(now.getTime() + leaseMs), updatedAt: now },
        $inc: { attempts: 1, claims: 1 },
      },
      { sort: { nextAttemptAt: 1 }, returnDocument: "after" },
    );
  }

  /** GitHub has this version; a newer view stored meanwhile stays pending. */
  async done(call: GitHubCall, ids: { checkRunId?: number; commentId?: number }, now: Date): Promise<void> {
    if (ids.checkRunId !== undefined || ids.commentId !== undefined)
      await this.calls.updateOne({ _id: call._id }, { $set: { ...ids, updatedAt: now } });
    await this.calls.updateOne(
      { _id: call._id, version: call.version },
      { $set: { pending: false, updatedAt: now }, $unset: { lastError: "" } },
    );
  }

  async retryLater(call: GitHubCall, delayMs: number, error: string, now: Date): Promise<void> {
    await this.calls.updateOne(
      { _id: call._id, version: call.version },
      { $set: { nextAttemptAt: new Date(now.getTime() + delayMs), lastError: error, updatedAt: now } },
    );
  }

  async giveUp(call: GitHubCall, error: string, now: Date): Promise<void> {
    await this.calls.updateOne(
      { _id: call._id, version: call.version },
      { $set: { pending: false, gaveUpAt: now, lastError: error, updatedAt: now } },
    );
  }

  /** The earliest time a pending call falls due, to sleep until then. */
  async nextDueAt(): Promise<Date | undefined> {
    const [next] = await this.calls.find({ pending: true }, { sort: { nextAttemptAt: 1 }, limit: 1 });
    return next?.nextAttemptAt;
  }

  /** An organisation's calls, most recent first (what `mainline github status` shows). */
  recent(org: string, limit: number): Promise<GitHubCall[]> {
    return this.calls.find({ org }, { sort: { updatedAt: -1 }, limit });
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/** One check run per PR head: a new push gets its own, as GitHub shows checks per commit. */
export function checkRunKey(target: CallTarget, headSha: string): string {
  const { host, owner, name } = target.repo;
  return `check:${target.org}|${host}/${owner}/${name}#${target.prNumber}@${headSha}`;
}
