import { InvalidArgumentError } from "@mainline/kit/errors/errors";
import { REQUESTABLE_QUEUE_STATES, type RequestableQueueState } from "./queue-state.js";

export type QueueMode = "SINGLE" | "PARALLEL";
export type MergeMethod = "MERGE_COMMIT" | "SQUASH" | "REBASE";
export type DirectMergeMode = "OFF" | "ALWAYS";
export type OptimizationMode = "OFF" | "BISECTION_SKIP_REDUNDANT_TESTS";
/** FIXED: batches fill to the target size. ADAPTIVE: the size follows the load, up to it (adaptive-batching.ts). */
export type BatchingMode = "FIXED" | "ADAPTIVE";

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
  requiredStatuses: string[];
  mergeMethod: MergeMethod;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
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
  requiredStatuses: [],
  mergeMethod: "SQUASH",
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  directMergeMode: "OFF",
  optimizationMode: "OFF",
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

const ENUMS = {
  mode: ["SINGLE", "PARALLEL"],
  mergeMethod: ["MERGE_COMMIT", "SQUASH", "REBASE"],
  directMergeMode: ["OFF", "ALWAYS"],
  optimizationMode: ["OFF", "BISECTION_SKIP_REDUNDANT_TESTS"],
  batchingMode: ["FIXED", "ADAPTIVE"],
} as const;
const POSITIVE_INTS = ["concurrency", "batchingMaxWaitTimeMinutes", "batchingMinSize"] as const;
const NON_NEGATIVE_INTS = ["testingTimeoutMinutes", "pendingFailureDepth"] as const;
const BOOLEANS = [
  "canOptimisticallyMerge",
  "batch",
  "commentsEnabled",
  "commandsEnabled",
  "statusCheckEnabled",
] as const;
const MAX_INT = 1_000_000;

function upperEnum<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  const upper = typeof value === "string" ? value.toUpperCase() : value;
  if (typeof upper === "string" && (allowed as readonly string[]).includes(upper)) return upper as T;
  throw new InvalidArgumentError(field, `must be one of ${allowed.join(", ")}`);
}

function integer(field: string, value: unknown, min: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > MAX_INT) {
    throw new InvalidArgumentError(field, `must be an integer >= ${min}`);
  }
  return value;
}

const KNOWN_FIELDS = new Set<string>([...Object.keys(DEFAULT_QUEUE_SETTINGS), "state"]);

/**
 * Checks an updateQueue body field by field and returns a typed patch; the first bad field
 * raises InvalidArgumentError(field, rule). Enum values are accepted in any case.
 */
export function parseSettingsPatch(input: Readonly<Record<string, unknown>>): QueueSettingsPatch {
  const patch: QueueSettingsPatch = {};
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (!KNOWN_FIELDS.has(field)) throw new InvalidArgumentError(field, "is not a queue setting");
    if (field === "state") {
      patch.state = upperEnum(field, value, REQUESTABLE_QUEUE_STATES);
    } else if (field in ENUMS) {
      const key = field as keyof typeof ENUMS;
      (patch as Record<string, unknown>)[key] = upperEnum(field, value, ENUMS[key]);
    } else if ((POSITIVE_INTS as readonly string[]).includes(field)) {
      (patch as Record<string, unknown>)[field] = integer(field, value, 1);
    } else if ((NON_NEGATIVE_INTS as readonly string[]).includes(field)) {
      (patch as Record<string, unknown>)[field] = integer(field, value, 0);
    } else if ((BOOLEANS as readonly string[]).includes(field)) {
      if (typeof value !== "boolean") throw new InvalidArgumentError(field, "must be a boolean");
      (patch as Record<string, unknown>)[field] = value;
    } else if (field === "bisectionConcurrency") {
      patch.bisectionConcurrency = value === null ? null : integer(field, value, 1);
    } else if (field === "requiredStatuses") {
      if (!Array.isArray(value) || !value.every((s) => typeof s === "string" && s.length > 0)) {
        throw new InvalidArgumentError(field, "must be a list of non-empty strings");
      }
      patch.requiredStatuses = [...new Set(value as string[])];
    }
  }
  return patch;
}

/** Settings for createQueue: defaults overlaid with a validated patch (state is not a setting). */
export function createQueueSettings(input: Readonly<Record<string, unknown>> = {}): QueueSettings {
  const { state: _state, ...patch } = parseSettingsPatch(input);
  return { ...DEFAULT_QUEUE_SETTINGS, requiredStatuses: [], ...patch };
}
