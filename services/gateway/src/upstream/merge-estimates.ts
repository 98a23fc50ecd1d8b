import { callUnary } from "@mainline/kit/grpc/index";
import type { QueueRef } from "@mainline/proto/common";
import type { Queue, QueueCoordinatorClient } from "@mainline/proto/queue";
import { queueEstimates, type PullRequestEstimate } from "./queue-estimates.js";
import type { LifecycleFeed, LifecycleNotice } from "./lifecycle-feed.js";

/** A snapshot is re-read after this long even without a notice (a notice missed during a reconnect). */
const SNAPSHOT_TTL_MS = 2_000;

const keyOf = (org: string, repo: string, branch: string) => `${org} ${repo} ${branch}`;

/**
 * The figures getSubmittedPullRequest adds: a PR's position and estimated merge time. Status polls are the
 * gateway's hottest path, so the queue is read once and kept until a lifecycle event says it changed. The recent
 * run durations come with the queue (the coordinator reads them from its stored runs), so every replica gives the
 * same estimate and a restart keeps it. A queue with no finished run yet gives the position without a time.
 */
export class MergeEstimates {
  private readonly snapshots = new Map<string, { at: number; queue: Promise<Queue | undefined> }>();

  constructor(
    private readonly queues: QueueCoordinatorClient,
    feed: LifecycleFeed,
    private readonly now: () => number = Date.now,
  ) {
    feed.listenAll((notice) => this.onNotice(notice));
  }

  async of(ref: QueueRef, prNumber: number): Promise<PullRequestEstimate | undefined> {
    const repo = ref.repo ? `${ref.repo.host}/${ref.repo.owner}/${ref.repo.name}` : "";
    const key = keyOf(ref.org, repo, ref.targetBranch);
    const queue = await this.snapshot(key, ref);
    return queue ? queueEstimates(queue, this.now(), prNumber).get(prNumber) : undefined;
  }

  private snapshot(key: string, ref: QueueRef): Promise<Queue | undefined> {
    const cached = this.snapshots.get(key);
    if (cached && this.now() - cached.at < SNAPSHOT_TTL_MS) return cached.queue;
    const queue = callUnary(this.queues.getQueue.bind(this.queues), { queue: ref }).then(
      (r) => r.queue,
      () => undefined,
    );
    this.snapshots.set(key, { at: this.now(), queue });
    return queue;
  }

  private onNotice(notice: LifecycleNotice): void {
    if (notice.kind === "resync") return this.snapshots.clear();
    if (notice.branch === undefined) return;
    const key = keyOf(notice.org, notice.repo, notice.branch);
    this.snapshots.delete(key);
  }
}
