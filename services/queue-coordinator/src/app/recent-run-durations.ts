import type { QueueEvent } from "../domain/index.js";
import type { QueueDocument } from "../store/queue-repository.js";

/** How many finished main runs the merge-time estimates look at. */
export const RECENT_RUNS = 20;

/**
 * The queue's recent main-run durations (newest first) after `event`: a main run that finishes with a verdict
 * (passed or failed; a conflict or a build failure ran no tests) adds how long it took. Kept on the queue's
 * document, bounded, so that GetQueue answers with them without reading the run records, whose number only grows.
 */
export function recentRunDurationsAfter(doc: QueueDocument, event: QueueEvent, now: number): number[] {
  const kept = doc.recentRunDurationsMs ?? [];
  if (event.type !== "TEST_RUN_FINISHED" || (event.outcome !== "PASSED" && event.outcome !== "FAILED"))
    return kept;
  const run = doc.planner.runs[event.runId];
  if (run?.kind !== "main" || run.status !== "RUNNING") return kept;
  return [Math.max(0, now - run.startedAt), ...kept].slice(0, RECENT_RUNS);
}
