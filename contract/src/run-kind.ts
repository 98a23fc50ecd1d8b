/**
 * Which line a test run belongs to: the queue's own ("main") or a bisection looking for a failing batch's
 * culprit. The metrics' `queue_type` label and the API's `kind` write these words; the gRPC enum TestRunKind
 * writes them upper case, and flaky-analytics tags a run's results with the matching ResultContext.
 */
export const RUN_KINDS = ["main", "bisection"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** The gRPC enum TestRunKind's words. */
export type WireRunKind = "MAIN" | "BISECTION";

/** The flaky-analytics ResultContext a queue run's results carry (spec rule 15: bisection runs are no evidence). */
export type RunResultContext = "MERGE_QUEUE" | "BISECTION";

export function runKindOf(isBisection: boolean): RunKind {
  return isBisection ? "bisection" : "main";
}

export function wireRunKind(kind: RunKind): WireRunKind {
  return kind === "bisection" ? "BISECTION" : "MAIN";
}

/** UNSPECIFIED (a publisher that did not say) reads as a main run. */
export function runKindOfWire(kind: string): RunKind {
  return runKindOf(kind === "BISECTION");
}

export function runResultContext(kind: RunKind | WireRunKind): RunResultContext {
  return kind === "bisection" || kind === "BISECTION" ? "BISECTION" : "MERGE_QUEUE";
}
