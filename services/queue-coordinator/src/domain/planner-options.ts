/** Knobs that are not queue settings; they exist to compare strategies in the simulator. */
export interface PlannerOptions {
  /** Rule 10 result reuse within a bisection. Always on in the service. */
  reuseBisectionResults: boolean;
}

export const DEFAULT_PLANNER_OPTIONS: Readonly<PlannerOptions> = Object.freeze({
  reuseBisectionResults: true,
});
