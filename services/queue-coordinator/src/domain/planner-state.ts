import type { Batch } from "./batch.js";
import type { ObservedFailures } from "./observed-failures.js";
import type { PullRequestEntry } from "./pull-request.js";
import { createQueueSettings, type QueueSettings } from "./queue-settings.js";
import type { ModeSwitch } from "./mode-switch.js";
import type { QueueState } from "./queue-state.js";
import type { TargetBroken } from "./target-broken.js";
import type { TestRun } from "./test-run.js";

export interface MergeInFlight {
  id: string;
  /** In merge order. */
  prs: number[];
  runId: string;
  batchIds: string[];
  optimistic: boolean;
}

/**
 * Everything the planner knows about one queue. Plain JSON (no class instances, no Maps) so
 * the shell can store it as a document. Finished PRs leave the state; their final entry is
 * carried by the notice that reports the end.
 */
export interface PlannerState {
  version: 1;
  branch: string;
  settings: QueueSettings;
  queueState: QueueState;
  switching: ModeSwitch | null;
  /** The latest time the planner has seen; time never goes back. */
  now: number;
  /** PRs not yet finished, by number. */
  prs: Record<string, PullRequestEntry>;
  /** Ready PRs in queue order (a topological order of the lanes). NOT_READY PRs are not here. */
  order: number[];
  batches: Record<string, Batch>;
  runs: Record<string, TestRun>;
  merges: Record<string, MergeInFlight>;
  /** Set while a test fails on the target itself (see target-hold.ts); absent or null: not held. */
  targetBroken?: TargetBroken | null;
  /** Absent in states stored before it was kept (see observed-failures.ts). */
  observed?: ObservedFailures;
  /** Deterministic ids: run-N, merge-N, entry-N, and bare N for batches. */
  counters: { run: number; batch: number; merge: number; entry: number };
}

export function createPlannerState(
  branch: string,
  settings: QueueSettings = createQueueSettings(),
  now = 0,
): PlannerState {
  return {
    version: 1,
    branch,
    settings,
    queueState: "RUNNING",
    switching: null,
    now,
    prs: {},
    order: [],
    batches: {},
    runs: {},
    merges: {},
    counters: { run: 0, batch: 0, merge: 0, entry: 0 },
  };
}
