import { Events, type NatsConnection, type Subscription } from "nats";
import type { Logger } from "@mainline/kit/logging/index";
import { SUBJECTS } from "@mainline/kit/streams/index";
import type { RepoRef } from "@mainline/proto/common";
import { TestStatusChanged } from "@mainline/proto/flaky";
import {
  BatchLifecycleEvent,
  PullRequestLifecycleEvent,
  PullRequestPriorityChanged,
  QueueLifecycleEvent,
  TestRunLifecycleEvent,
} from "@mainline/proto/queue";

/** What a page needs to know to re-read: whose, which queue (or repository), and what kind of change. */
export interface LifecycleNotice {
  org: string;
  /** host/owner/name */
  repo: string;
  /** Absent for a test's status change, which belongs to a repository, not a queue. */
  branch?: string;
  /** "resync": events may have been missed (the gateway's NATS connection was re-established): re-read all. */
  kind: "pull-request" | "batch" | "test-run" | "queue" | "test-status" | "resync";
  pr?: number;
}

type Decode = (data: Uint8Array) => LifecycleNotice | undefined;

const repoKey = (r: RepoRef | undefined) => (r ? `${r.host}/${r.owner}/${r.name}` : "");

const DECODERS: Record<string, Decode> = {
  [SUBJECTS.pullRequestEvent]: (data) => {
    const e = PullRequestLifecycleEvent.decode(data);
    const repo = repoKey(e.repository);
    return { org: e.org, repo, branch: e.targetBranch, kind: "pull-request", pr: e.prNumber };
  },
  [SUBJECTS.pullRequestPriorityEvent]: (data) => {
    const e = PullRequestPriorityChanged.decode(data);
    const q = e.queue;
    return (
      q && { org: q.org, repo: repoKey(q.repo), branch: q.targetBranch, kind: "pull-request", pr: e.prNumber }
    );
  },
  [SUBJECTS.batchEvent]: (data) => {
    const e = BatchLifecycleEvent.decode(data);
    return { org: e.org, repo: repoKey(e.repository), branch: e.targetBranch, kind: "batch" };
  },
  [SUBJECTS.testRunEvent]: (data) => {
    const e = TestRunLifecycleEvent.decode(data);
    const q = e.queue;
    return q && { org: q.org, repo: repoKey(q.repo), branch: q.targetBranch, kind: "test-run" };
  },
  [SUBJECTS.queueEvent]: (data) => {
    const q = QueueLifecycleEvent.decode(data).queue;
    return q && { org: q.org, repo: repoKey(q.repo), branch: q.targetBranch, kind: "queue" };
  },
  [SUBJECTS.testStatusEvent]: (data) => {
    const e = TestStatusChanged.decode(data);
    return { org: e.org, repo: repoKey(e.repo), kind: "test-status" };
  },
};

export interface NoticeListener {
  notice(notice: LifecycleNotice): void;
  /** The feed stops (the gateway shuts down): end the stream so the HTTP server can close. */
  stopped(): void;
}

/**
 * The lifecycle events, as they are published, for the pages open in browsers. A plain NATS subscription, not a
 * JetStream consumer: JetStream publishes are ordinary NATS messages too, so the gateway hears each one the
 * moment it is stored, keeps no server-side state per replica, and a page that missed events (a reconnect)
 * simply re-reads what it shows. Listeners are indexed by organisation: a notice never reaches another's page.
 */
export class LifecycleFeed {
  private readonly listeners = new Map<string, Set<NoticeListener>>();
  private readonly everything = new Set<(notice: LifecycleNotice) => void>();
  private subscription: Subscription | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.watchReconnects();
    this.subscription = this.nc.subscribe("mainline.events.>", {
      callback: (error, msg) => {
        if (error) return this.logger.warn({ err: error }, "lifecycle feed subscription error");
        const decode = DECODERS[msg.subject];
        if (!decode) return;
        let notice: LifecycleNotice | undefined;
        try {
          notice = decode(msg.data);
        } catch (err) {
          this.logger.warn({ err, subject: msg.subject }, "undecodable lifecycle event not shown");
          return;
        }
        if (!notice?.org) return;
        for (const listener of this.everything) listener(notice);
        for (const listener of this.listeners.get(notice.org) ?? []) listener.notice(notice);
      },
    });
  }

  /**
   * A plain subscription hears nothing while the connection is down, and the pages' streams (browser to gateway)
   * stay open meanwhile, so no page would know it missed a change. When the connection comes back, every page
   * and cache is told to re-read.
   */
  private async watchReconnects(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type !== Events.Reconnect) continue;
      this.logger.info("lifecycle feed reconnected; asking every open page to re-read");
      for (const listener of this.everything) listener({ org: "", repo: "", kind: "resync" });
      for (const [org, set] of this.listeners)
        for (const listener of set) listener.notice({ org, repo: "", kind: "resync" });
    }
  }

  /** Every organisation's notices: for the gateway's own caches, never for a page. */
  listenAll(listener: (notice: LifecycleNotice) => void): void {
    this.everything.add(listener);
  }

  /** Returns the unsubscribe function. */
  listen(org: string, listener: NoticeListener): () => void {
    let set = this.listeners.get(org);
    if (!set) this.listeners.set(org, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(org);
    };
  }

  get listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  stop(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    for (const set of [...this.listeners.values()]) for (const listener of [...set]) listener.stopped();
    this.listeners.clear();
  }
}
