import type { JetStreamManager } from "nats";
import { ensureConsumer } from "@mainline/kit/bus/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { GITHUB_WAIT_DELIVERIES } from "../jobs/github-wait.js";

/**
 * The batch-runner's durable consumers on the jobs stream. Every replica binds to the same
 * durable names, so the server hands each job to exactly one replica (the work-queue stream
 * also forbids a second consumer on the same subject).
 */
export const JOB_CONSUMERS = {
  testRun: { durable: "batch-runner-test-run", subject: SUBJECTS.testRunJob },
  merge: { durable: "batch-runner-merge", subject: SUBJECTS.mergeJob },
  testBranchCleanup: { durable: "batch-runner-test-branch-cleanup", subject: SUBJECTS.testBranchCleanupJob },
} as const;

export interface JobConsumerSettings {
  /**
   * How long the server waits before handing an unacknowledged job to another replica. A running
   * handler renews it (msg.working), so this bounds only how long a crashed replica's job waits.
   */
  readonly ackWaitMs: number;
  /** Deliveries of one job before it is dropped; the last one publishes an ERROR/FAILED result. */
  readonly maxDeliver: number;
  /** Deliveries the merge consumer allows on top of `maxDeliver` for waits GitHub asked for; default GITHUB_WAIT_DELIVERIES. */
  readonly githubWaitDeliveries?: number;
}

export const DEFAULT_JOB_CONSUMER_SETTINGS: JobConsumerSettings = { ackWaitMs: 30_000, maxDeliver: 6 };

/** Idempotent: every replica calls it at start. */
export async function provisionJobConsumers(
  jsm: JetStreamManager,
  settings: JobConsumerSettings,
): Promise<void> {
  for (const { durable, subject } of Object.values(JOB_CONSUMERS)) {
    await ensureConsumer(jsm, STREAMS.jobs.name, {
      durable,
      filterSubjects: [subject],
      ackWaitMs: settings.ackWaitMs,
      // A merge through GitHub's API also waits out GitHub's retry-after, on deliveries of their own.
      maxDeliver:
        settings.maxDeliver +
        (durable === JOB_CONSUMERS.merge.durable
          ? (settings.githubWaitDeliveries ?? GITHUB_WAIT_DELIVERIES)
          : 0),
    });
  }
}
