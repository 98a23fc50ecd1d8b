import type { JetStreamManager } from "nats";
import { ensureStream, type Replication, type StreamSpec } from "../bus/index.js";

/**
 * The JetStream topology every service shares (DESIGN rule 3). Jobs and results are work queues: each message
 * is for exactly one consumer and leaves the stream once acknowledged. Lifecycle events are kept for a week so
 * that webhooks and metrics, each with its own durable consumer, can catch up after downtime.
 */
export const SUBJECTS = {
  /** queue-coordinator -> batch-runner */
  testRunJob: "mainline.jobs.test-run",
  mergeJob: "mainline.jobs.merge",
  /** Test branches of cancelled runs an external CI may be building. */
  testBranchCleanupJob: "mainline.jobs.test-branch-cleanup",
  /** batch-runner (COMMAND runs) / queue-coordinator (external CI reports) -> flaky-analytics: JUnit to ingest */
  testResults: "mainline.jobs.test-results",
  /** batch-runner -> queue-coordinator */
  testRunResult: "mainline.results.test-run",
  /** The test branch is pushed and testing begins: its commit, before the result. */
  testRunPushed: "mainline.results.test-run-pushed",
  mergeResult: "mainline.results.merge",
  /** queue-coordinator -> webhooks, metrics */
  pullRequestEvent: "mainline.events.pull-request",
  /** A queued PR's priority changed (the live page re-reads its order). */
  pullRequestPriorityEvent: "mainline.events.pull-request-priority",
  batchEvent: "mainline.events.batch",
  testRunEvent: "mainline.events.test-run",
  /** A queue's state or mode changed. */
  queueEvent: "mainline.events.queue",
  /** flaky-analytics -> webhooks, metrics */
  testStatusEvent: "mainline.events.test-status",
} as const;

const TEN_MINUTES = 10 * 60_000;

export const STREAMS = {
  jobs: {
    name: "MAINLINE_JOBS",
    subjects: ["mainline.jobs.>"],
    retention: "workqueue",
    duplicateWindowMs: TEN_MINUTES,
  },
  results: {
    name: "MAINLINE_RESULTS",
    subjects: ["mainline.results.>"],
    retention: "workqueue",
    duplicateWindowMs: TEN_MINUTES,
  },
  events: {
    name: "MAINLINE_EVENTS",
    subjects: ["mainline.events.>"],
    retention: "limits",
    maxAgeMs: 7 * 24 * 60 * 60_000,
    duplicateWindowMs: TEN_MINUTES,
  },
} as const satisfies Record<string, StreamSpec>;

/**
 * Idempotent: every service calls it at start, whichever starts first creates the streams, with the configured
 * replicas (one when no replication is given), and raises those of streams found with fewer.
 */
export async function provisionMainlineStreams(
  jsm: JetStreamManager,
  replication?: Replication,
): Promise<void> {
  for (const spec of Object.values(STREAMS))
    await ensureReplicatedStream(jsm, { ...spec, subjects: [...spec.subjects] }, replication);
}

/** ensureStream with NATS_REPLICAS, saying in the service's log when it raised a stream's replicas. */
export async function ensureReplicatedStream(
  jsm: JetStreamManager,
  spec: StreamSpec,
  replication: Replication | undefined,
): Promise<void> {
  const result = await ensureStream(jsm, { ...spec, ...(replication && { replicas: replication.replicas }) });
  if (replication && result.replicasRaisedFrom !== undefined)
    replication.logger.info(
      { asset: spec.name, from: result.replicasRaisedFrom, to: replication.replicas },
      `raised replicas of ${spec.name} from ${result.replicasRaisedFrom} to ${replication.replicas}`,
    );
}
