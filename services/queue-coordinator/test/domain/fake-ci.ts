import type { QueueEvent, TestRun } from "../../src/domain/index.js";
import type { Scenario } from "./scenario-table.js";

/** What a run's end says beyond its outcome: the tests it failed and what flaky-analytics knows of them. */
export type RunAnswer = Omit<Extract<QueueEvent, { type: "TEST_RUN_FINISHED" }>, "type" | "runId">;

/**
 * Deterministic CI for scenarios: a run fails exactly when its projected branch (base plus
 * PRs under test) contains a bad PR, unless `answer` gives the run another end (a flake). Finishes runs and
 * merges in id order until nothing is in flight; returns the number of rounds.
 */
export function driveToCompletion(
  s: Scenario,
  bad: ReadonlySet<number>,
  maxRounds = 200,
  answer: (run: Readonly<TestRun>) => RunAnswer | undefined = () => undefined,
): number {
  for (let round = 0; round < maxRounds; round++) {
    const merge = Object.values(s.state.merges)[0];
    if (merge !== undefined) {
      s.apply({ type: "MERGE_FINISHED", mergeId: merge.id, outcome: "MERGED" });
      continue;
    }
    const run = Object.values(s.state.runs).find((r) => r.status === "RUNNING");
    if (run === undefined) {
      if (s.state.order.length === 0) return round;
      s.now += 60 * 60_000;
      s.apply({ type: "TIME_PASSED" });
      continue;
    }
    const failing = [...run.base, ...run.prs].some((p) => bad.has(p));
    const end = answer(run) ?? { outcome: failing ? "FAILED" : "PASSED" };
    s.apply({ type: "TEST_RUN_FINISHED", runId: run.id, ...end });
  }
  throw new Error("the queue did not empty");
}
