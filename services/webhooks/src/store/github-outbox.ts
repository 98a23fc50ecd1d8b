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
  /** The PR the call is about: one sender works on one PR's calls at a time, so GitHub sees them in order. */
  prKey: string;
  /** check-run: the PR head it is on, what it should say, and GitHub's id once created. */
  headSha?: string;
  view?: CheckRunView;
  /** The view the check run is created with: GitHub shows where the PR started (queued), then where it is. */
  firstView?: CheckRunView;
  firstVersion?: number;
  detailsUrl?: string;
  checkRunId?: number;
  /** comment: the text, and GitHub's id once posted. */
  body?: string;
  commentId?: number;
  /** The events-stream sequence the view comes from: an older event never overwrites a newer view. */
  version: number;
  pending: boolean;
  nextAttemptAt: Date;
  /**
   * A sender holds the call until then (epoch when none does). Apart from nextAttemptAt: a newer view makes the
   * call due at once but still waits for the holder, so two senders never create the same check run.
   */
  leasedUntil: Date;
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

const NO_LEASE = new Date(0);

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
          $setOnInsert: {
            kind: "check-run",
            ...target,
            prKey: prKeyOf(target),
            headSha,
            firstView: view,
            firstVersion: version,
            leasedUntil: NO_LEASE,
            createdAt: now,
          },
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
        prKey: prKeyOf(target),
        body,
        version: 1,
        pending: true,
        nextAttemptAt: now,
        leasedUntil: NO_LEASE,
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
   * Takes the most overdue call nobody holds, for `leaseMs`: another sender (or this one after a crash) takes it
   * again only when the lease runs out without an outcome. Calls of the PRs in `busy` are left for later; among
   * calls due at the same time the older goes first (a PR's check run before the comment of the same event).
   */
  claimDue(now: Date, leaseMs: number, busy: readonly string[] = []): Promise<GitHubCall | null> {
    return this.calls.findOneAndUpdate(
      {
        pending: true,
        nextAttemptAt: { $lte: now },
        leasedUntil: { $lte: now },
        ...(busy.length > 0 && { prKey: { $nin: [...busy] } }),
      },
      {
        $set: { leasedUntil: new Date(now.getTime() + leaseMs), updatedAt: now },
        $inc: { attempts: 1, claims: 1 },
      },
      { sort: { nextAttemptAt: 1, createdAt: 1 }, returnDocument: "after" },
    );
  }

  /** GitHub has this version; a newer view stored meanwhile stays pending (and keeps GitHub's id). */
  async done(call: GitHubCall, ids: { checkRunId?: number; commentId?: number }, now: Date): Promise<void> {
    const finished = await this.calls.updateOne(
      { _id: call._id, version: call.version },
      { $set: { ...ids, pending: false, leasedUntil: NO_LEASE, updatedAt: now }, $unset: { lastError: "" } },
    );
    if (finished.matchedCount === 0) await this.release(call, ids, now);
  }

  async retryLater(call: GitHubCall, delayMs: number, error: string, now: Date): Promise<void> {
    const next = new Date(now.getTime() + delayMs);
    const updated = await this.calls.updateOne(
      { _id: call._id, version: call.version },
      { $set: { nextAttemptAt: next, lastError: error, leasedUntil: NO_LEASE, updatedAt: now } },
    );
    if (updated.matchedCount === 0) await this.release(call, {}, now);
  }

  async giveUp(call: GitHubCall, error: string, now: Date): Promise<void> {
    const updated = await this.calls.updateOne(
      { _id: call._id, version: call.version },
      { $set: { pending: false, gaveUpAt: now, lastError: error, leasedUntil: NO_LEASE, updatedAt: now } },
    );
    if (updated.matchedCount === 0) await this.release(call, {}, now);
  }

  /** The earliest time a pending call can be taken, to sleep until then. */
  async nextDueAt(): Promise<Date | undefined> {
    const pending = await this.calls.find({ pending: true }, { sort: { nextAttemptAt: 1 }, limit: 50 });
    const times = pending.map((c) => Math.max(c.nextAttemptAt.getTime(), c.leasedUntil.getTime()));
    return times.length > 0 ? new Date(Math.min(...times)) : undefined;
  }

  /** A newer view arrived while this sender held the call: let it go (due at once), keeping GitHub's ids. */
  private async release(call: GitHubCall, ids: { checkRunId?: number; commentId?: number }, now: Date) {
    await this.calls.updateOne(
      { _id: call._id },
      { $set: { ...ids, leasedUntil: NO_LEASE, updatedAt: now } },
    );
    this.notify();
  }

  /** An organisation's calls, most recent first (what `mainline github status` shows). */
  recent(org: string, limit: number): Promise<GitHubCall[]> {
    return this.calls.find({ org }, { sort: { updatedAt: -1 }, limit });
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

export function prKeyOf(target: CallTarget): string {
  const { host, owner, name } = target.repo;
  return `${target.org}|${host}/${owner}/${name}#${target.prNumber}`;
}

/** One check run per PR head: a new push gets its own, as GitHub shows checks per commit. */
export function checkRunKey(target: CallTarget, headSha: string): string {
  return `check:${prKeyOf(target)}@${headSha}`;
}
