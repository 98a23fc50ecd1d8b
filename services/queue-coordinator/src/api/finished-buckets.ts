import type { QueueInsightsBucket } from "@mainline/proto/queue";

/**
 * Sets of queues (an organisation's, a repository's, one queue) and bucket widths remembered at once: 90 days by
 * hour is 2,160 buckets of about half a KiB, so at most some 35 MiB; the set used longest ago is forgotten first.
 */
const MAX_SETS = 32;

/**
 * Buckets of GetQueueInsights answered already that can never change, by set of queues and bucket width (issue
 * 29): a bucket is finished when every hour in it is before each queue's first hour still open or waiting in its
 * document, as those hours are stored and sealed for good. Every replica computes the same finished bucket from
 * the same stored hours, so remembering them keeps replicas in agreement; a 90-day answer then adds up only the
 * hours after the last finished bucket.
 */
export class FinishedBuckets {
  /** By `${bucketHours} ${queueKeys}`, then by the bucket's start (ms); the set used longest ago first. */
  private readonly sets = new Map<string, Map<number, QueueInsightsBucket>>();

  static key(bucketHours: number, queueKeys: readonly string[]): string {
    return `${bucketHours} ${[...queueKeys].sort().join(" ")}`;
  }

  /** The finished buckets from `from` on, every `width` ms, up to the first one not remembered. */
  leading(key: string, from: number, width: number, count: number): QueueInsightsBucket[] {
    const set = this.sets.get(key);
    const found: QueueInsightsBucket[] = [];
    for (let i = 0; set && i < count; i++) {
      const bucket = set.get(from + i * width);
      if (!bucket) break;
      found.push(bucket);
    }
    return found;
  }

  /** Remembers `buckets` (finished ones only), and forgets those older than `keepFrom`. */
  remember(
    key: string,
    buckets: readonly (QueueInsightsBucket & { startMs: number })[],
    keepFrom: number,
  ): void {
    const set = this.sets.get(key) ?? new Map<number, QueueInsightsBucket>();
    // Moved to the end: the map's order is then the order the sets were last used in.
    this.sets.delete(key);
    this.sets.set(key, set);
    if (this.sets.size > MAX_SETS) this.sets.delete(this.sets.keys().next().value!);
    for (const { startMs, ...bucket } of buckets) set.set(startMs, bucket);
    for (const start of set.keys()) if (start < keepFrom) set.delete(start);
  }
}
