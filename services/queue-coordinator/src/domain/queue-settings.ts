import type {
  BatchingMode,
  BisectionMode,
  DirectMergeMode,
  MergeMethod,
  OptimizationMode,
  QueueMode,
} from "@mainline/contract";
import type { RequestableQueueState } from "./queue-state.js";

/** The contract's words. FIXED batches fill to the target size; ADAPTIVE follows the load (adaptive-batching.ts). */
export type { BatchingMode, BisectionMode, DirectMergeMode, MergeMethod, OptimizationMode, QueueMode };

/** Every getQueue setting of compat-notes except state, branch and the PR list. */
export interface QueueSettings {
  mode: QueueMode;
  concurrency: number;
  /** 0 disables the timeout. */
  testingTimeoutMinutes: number;
  canOptimisticallyMerge: boolean;
  /** 0 disables waiting for successors. */
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  /** The "target batch size"; with ADAPTIVE batching, the largest size it may pick. */
  batchingMinSize: number;
  batchingMode: BatchingMode;
  /** null: follows `concurrency` (the default), as a separate pool of the same size. */
  bisectionConcurrency: number | null;
  /**
   * How a failed batch is searched once its good groups can only go back into the line (bisection-runner.ts):
   * STACKED, or ISOLATED (each half on the target alone). Absent in queues created before it: STACKED.
   */
  bisectionMode: BisectionMode;
  requiredStatuses: string[];
  mergeMethod: MergeMethod;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  /** Issue 26 (contract TEST_AWARE_QUEUE_SETTINGS): null follows the repository's quarantining setting. */
  ignoreQuarantinedTests: boolean | null;
  retryKnownFlakyTests: boolean | null;
  holdOnBrokenTarget: boolean | null;
  /** Issue 28: the most PRs one stack may hold; 0 refuses stacked PRs. Absent in queues created before stacks. */
  maxStackSize: number;
}

export const DEFAULT_QUEUE_SETTINGS: Readonly<QueueSettings> = Object.freeze({
  mode: "SINGLE",
  concurrency: 1,
  testingTimeoutMinutes: 300,
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  batchingMode: "FIXED",
  bisectionConcurrency: null,
  bisectionMode: "ISOLATED",
  requiredStatuses: [],
  mergeMethod: "SQUASH",
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  directMergeMode: "OFF",
  optimizationMode: "OFF",
  ignoreQuarantinedTests: null,
  retryKnownFlakyTests: null,
  holdOnBrokenTarget: null,
  maxStackSize: 32,
} satisfies QueueSettings);

/** What updateQueue may carry: any setting, plus a requested state. */
export type QueueSettingsPatch = Partial<QueueSettings> & { state?: RequestableQueueState };

export function effectiveBisectionConcurrency(settings: QueueSettings): number {
  return settings.bisectionConcurrency ?? settings.concurrency;
}

/** Spec rule 10: caching during bisection is always on while batching, so report it as such. */
export function effectiveOptimizationMode(settings: QueueSettings): OptimizationMode {
  return settings.batch ? "BISECTION_SKIP_REDUNDANT_TESTS" : settings.optimizationMode;
}

/** Settings for createQueue: the defaults overlaid with settings already parsed (api/command-parser.ts). */
export function createQueueSettings(settings: Readonly<Partial<QueueSettings>> = {}): QueueSettings {
  return { ...DEFAULT_QUEUE_SETTINGS, requiredStatuses: [], ...settings };
}
