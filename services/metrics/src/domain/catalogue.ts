import type { QueueType } from "./observation.js";
import { TEST_RUN_OUTCOMES } from "./test-run-facts.js";
import { COUNTED_TEST_STATUSES } from "./test-status.js";

/** Buckets of every duration histogram, in seconds (compat-notes). */
export const DURATION_BUCKETS = [60, 300, 600, 900, 1800, 3600, 5400, 7200] as const;
/** Buckets of the batch-size histogram, in PRs. */
export const BATCH_SIZE_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50] as const;

export interface FamilyDefinition {
  name: string;
  help: string;
  type: "gauge" | "histogram";
  buckets?: readonly number[];
  /**
   * The queue types every known queue reports, at zero when nothing happened; a series of another type
   * appears only when there is something to report.
   */
  queueTypes: readonly QueueType[];
  /** A label besides repo, branch and queue_type, with every value it takes. */
  extraLabel?: { name: string; values: readonly string[] };
  /** True for the catalogue of compat-notes.md, false for Mainline's own. */
  catalogue: boolean;
  /** Labels other than the queue's (repo, branch, queue_type), for families that are not per queue. */
  ownLabels?: readonly string[];
}

const BOTH: readonly QueueType[] = ["main", "bisection"];
const MAIN: readonly QueueType[] = ["main"];

/** Every family GET /getMergeQueueMetrics serves, in the order it serves them. */
export const FAMILIES = {
  depth: {
    name: "mq_depth_current",
    help: "Pull requests in the queue, not counting those awaiting mergeability.",
    type: "gauge",
    queueTypes: MAIN,
    catalogue: true,
  },
  awaitingMergeability: {
    name: "mq_awaiting_mergeability",
    help: "Pull requests submitted but not ready (NOT_READY): awaiting mergeability.",
    type: "gauge",
    queueTypes: MAIN,
    catalogue: true,
  },
  testingSlots: {
    name: "mq_testing_slots_active",
    help: "Test runs in progress.",
    type: "gauge",
    queueTypes: BOTH,
    catalogue: true,
  },
  conclusions: {
    name: "mq_pr_conclusions_1h_total",
    help: "Pull requests that left the queue in the last hour, by conclusion.",
    type: "gauge",
    queueTypes: BOTH,
    extraLabel: { name: "conclusion", values: ["merged", "failed", "cancelled"] },
    catalogue: true,
  },
  restarts: {
    name: "mq_pr_restarts_1h_total",
    help: "TESTING -> PENDING transitions (restarts) in the last hour.",
    type: "gauge",
    queueTypes: MAIN,
    catalogue: true,
  },
  waitDuration: {
    name: "mq_pr_wait_duration_1h_seconds",
    help: "Time from ready (PENDING) to TESTING of the pull requests that started testing in the last hour.",
    type: "histogram",
    buckets: DURATION_BUCKETS,
    queueTypes: MAIN,
    catalogue: true,
  },
  testDuration: {
    name: "mq_pr_test_duration_1h_seconds",
    help: "Time in TESTING of the pull requests whose test ended with a result in the last hour.",
    type: "histogram",
    buckets: DURATION_BUCKETS,
    queueTypes: MAIN,
    catalogue: true,
  },
  timeInQueue: {
    name: "mq_pr_time_in_queue_1h_seconds",
    help: "Time from entry to exit, NOT_READY time excluded, of the pull requests that left in the last hour.",
    type: "histogram",
    buckets: DURATION_BUCKETS,
    queueTypes: MAIN,
    catalogue: true,
  },
  batchSize: {
    name: "mq_batch_size_1h",
    help: "Pull requests under test per main test run started in the last hour.",
    type: "histogram",
    buckets: BATCH_SIZE_BUCKETS,
    queueTypes: MAIN,
    catalogue: false,
  },
  runsStarted: {
    name: "mq_test_runs_started_1h",
    help: "Test runs started in the last hour (queue_type bisection: the bisection runs).",
    type: "gauge",
    queueTypes: BOTH,
    catalogue: false,
  },
  runsFinished: {
    name: "mq_test_runs_finished_1h",
    help: "Test runs that ended in the last hour, by outcome (cancelled: abandoned before a result).",
    type: "gauge",
    queueTypes: BOTH,
    extraLabel: { name: "outcome", values: TEST_RUN_OUTCOMES },
    catalogue: false,
  },
  runDuration: {
    name: "mq_test_run_duration_1h_seconds",
    help: "Duration of the test runs that finished with a result in the last hour.",
    type: "histogram",
    buckets: DURATION_BUCKETS,
    queueTypes: BOTH,
    catalogue: false,
  },
  reusedResults: {
    name: "mq_bisection_results_reused_1h",
    help: "Bisection steps answered in the last hour from an earlier run's result, without a run of their own.",
    type: "gauge",
    queueTypes: ["bisection"],
    catalogue: false,
  },
  runsPerMergedPr: {
    name: "mq_ci_runs_per_merged_pr_1h",
    help: "Test runs started in the last hour per pull request merged in the last hour (absent when none merged).",
    type: "gauge",
    queueTypes: [],
    catalogue: false,
  },
  tests: {
    name: "mq_tests_current",
    help: "Tests of the repository currently judged flaky or broken (labels repo and status only).",
    type: "gauge",
    queueTypes: [],
    extraLabel: { name: "status", values: COUNTED_TEST_STATUSES },
    catalogue: false,
    ownLabels: ["repo", "status"],
  },
} as const satisfies Record<string, FamilyDefinition>;

export type FamilyId = keyof typeof FAMILIES;

/** The label names of a family's series, in the order they are written. */
export function labelNamesOf(definition: FamilyDefinition): readonly string[] {
  if (definition.ownLabels) return definition.ownLabels;
  const queue = ["repo", "branch", "queue_type"];
  return definition.extraLabel ? [...queue, definition.extraLabel.name] : queue;
}
