import type { LiveState, PullRequestTimeline } from "./pull-request-timeline.js";
import { pullRequestKeyOf, type QueueIdentity } from "./queue-identity.js";
import type { ActiveTestRun } from "./test-run-facts.js";

/** The coordinator's state as ListQueues reports it, every organisation at once. */
export interface CoordinatorSnapshot {
  queues: QueueIdentity[];
  pullRequests: SnapshotPullRequest[];
  runs: ActiveTestRun[];
}

export interface SnapshotPullRequest {
  queue: QueueIdentity;
  pr: number;
  state: LiveState;
  stateChangedAt: number;
}

/** What the metrics hold when the snapshot arrives, and which of it events changed since it was asked for. */
export interface LocalState {
  timelines: ReadonlyMap<string, PullRequestTimeline>;
  runs: ReadonlyMap<string, ActiveTestRun>;
  /** True when an event touched this key (a PR's or a run's) after the snapshot was requested. */
  touchedSince(key: string): boolean;
}

export interface ReconcilePlan {
  putTimelines: PullRequestTimeline[];
  dropTimelines: string[];
  putRuns: ActiveTestRun[];
  dropRuns: string[];
}

export const runKeyOf = (runId: string): string => `run:${runId}`;
export const timelineKeyOf = (t: { queue: QueueIdentity; pr: number }): string =>
  `pr:${pullRequestKeyOf(t.queue, t.pr)}`;

/**
 * Re-derives the gauges' state from the coordinator's. Whatever no event touched since the snapshot was asked
 * for is as the coordinator says: the coordinator publishes only what it has committed, so its answer includes
 * every event applied before. What an event touched since is newer than (or as new as) the snapshot and stays.
 */
export function planReconcile(local: LocalState, snapshot: CoordinatorSnapshot): ReconcilePlan {
  const plan: ReconcilePlan = { putTimelines: [], dropTimelines: [], putRuns: [], dropRuns: [] };

  const reported = new Set<string>();
  for (const s of snapshot.pullRequests) {
    const key = timelineKeyOf(s);
    reported.add(key);
    const held = local.timelines.get(key);
    if (local.touchedSince(key)) {
      // Gone or newer since the request: an event after the snapshot knows better.
      if (held === undefined || held.stateSince >= s.stateChangedAt) continue;
    }
    if (held !== undefined && held.state === s.state && held.stateSince >= s.stateChangedAt) continue;
    plan.putTimelines.push(corrected(held, s));
  }
  for (const key of local.timelines.keys()) {
    if (!reported.has(key) && !local.touchedSince(key)) plan.dropTimelines.push(key);
  }

  const running = new Set<string>();
  for (const run of snapshot.runs) {
    const key = runKeyOf(run.runId);
    running.add(key);
    if (!local.runs.has(run.runId) && !local.touchedSince(key)) plan.putRuns.push(run);
  }
  for (const runId of local.runs.keys()) {
    const key = runKeyOf(runId);
    if (!running.has(key) && !local.touchedSince(key)) plan.dropRuns.push(runId);
  }
  return plan;
}

/**
 * A timeline whose events were missed: its state and the start of that state are the coordinator's; how long
 * it was in the queue before is not known, so it is not measured for time in queue.
 */
function corrected(held: PullRequestTimeline | undefined, s: SnapshotPullRequest): PullRequestTimeline {
  const queued = s.state !== "NOT_READY";
  return {
    queue: s.queue,
    pr: s.pr,
    state: s.state,
    stateSince: s.stateChangedAt,
    queuedSince: queued ? s.stateChangedAt : null,
    queuedMs: 0,
    everQueued: queued || (held?.everQueued ?? false),
    complete: false,
    waitingSince: s.state === "PENDING" ? s.stateChangedAt : null,
    testingSince: s.state === "TESTING" ? s.stateChangedAt : null,
    lastEventId: held?.lastEventId ?? "",
  };
}
