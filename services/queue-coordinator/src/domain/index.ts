/** The merge-queue planner and its vocabulary: pure, no I/O (DESIGN.md rule 2). */
export * from "./batch.js";
export * from "./batch-placement.js";
export * from "./bisection.js";
export * from "./decisions.js";
export * from "./events.js";
export * from "./impacted-targets.js";
export * from "./mode-switch.js";
export * from "./planner.js";
export * from "./planner-options.js";
export * from "./planner-state.js";
export * from "./priority.js";
export * from "./pull-request.js";
export * from "./queue-settings.js";
export * from "./queue-state.js";
export * from "./reasons.js";
export * from "./resubmission.js";
export {
  MAX_STACK_SIZE,
  nextBelow,
  queueReadiness,
  stackBelow,
  stackViews,
  type StackCandidate,
  type StackView,
} from "./stack.js";
export * from "./run-failure-decision.js";
export * from "./target-hold.js";
export * from "./test-knowledge.js";
export * from "./test-run.js";
export { LaneGraph } from "./lanes.js";
export * from "./insights-hour.js";
export * from "./insights-report.js";
