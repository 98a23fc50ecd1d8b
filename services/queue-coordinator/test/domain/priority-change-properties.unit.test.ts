import { expect } from "chai";
import fc from "fast-check";
import { parsePriority } from "../../src/api/command-parser.js";
import { letter, Scenario } from "./scenario-table.js";

const LEVELS = ["urgent", "high", "medium", "low"] as const;

type Step =
  | { kind: "submit"; pr: number; level: (typeof LEVELS)[number] }
  | { kind: "priority"; pr: number; level: (typeof LEVELS)[number] }
  | { kind: "pass" }
  | { kind: "merged" };

const stepArb = (prs: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("submit" as const),
        pr: fc.integer({ min: 1, max: prs }),
        level: fc.constantFrom(...LEVELS),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("priority" as const),
        pr: fc.integer({ min: 1, max: prs }),
        level: fc.constantFrom(...LEVELS),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: "pass" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "merged" as const }) },
  );

/** The PRs waiting in line (never tested in their place, not merging) must stand in priority order. */
function waitingInPriorityOrder(s: Scenario): void {
  const waiting = s.state.order
    .map((n) => s.state.prs[String(n)])
    .filter((e) => e !== undefined && !e.startedTesting && e.mergeId === null);
  const values = waiting.map((e) => e!.priority.value);
  expect(values, `waiting ${waiting.map((e) => letter(e!.number)).join("")}`).to.deep.equal(
    [...values].sort((a, b) => a - b),
  );
}

/** Passes every running run and finishes every merge until nothing is left to do. */
function drain(s: Scenario): void {
  for (let i = 0; i < 500; i++) {
    const running = Object.values(s.state.runs).find((r) => r.status === "RUNNING");
    const merge = Object.values(s.state.merges)[0];
    if (merge) s.apply({ type: "MERGE_FINISHED", mergeId: merge.id, outcome: "MERGED" });
    else if (running) s.apply({ type: "TEST_RUN_FINISHED", runId: running.id, outcome: "PASSED" });
    else return;
    waitingInPriorityOrder(s);
  }
  throw new Error("the queue did not drain in 500 steps");
}

describe("planner: priority changes keep the queue sound (property)", () => {
  it("whatever the submissions and changes, waiting PRs stay in priority order and every PR merges", () => {
    fc.assert(
      fc.property(
        fc.record({
          concurrency: fc.integer({ min: 1, max: 2 }),
          batch: fc.boolean(),
          steps: fc.array(stepArb(8), { minLength: 10, maxLength: 60, size: "max" }),
        }),
        ({ concurrency, batch, steps }) => {
          const s = new Scenario({ concurrency, batch, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 1 });
          const submitted = new Set<number>();
          for (const step of steps) {
            s.now += 1_000;
            if (step.kind === "submit") {
              if (submitted.has(step.pr)) continue;
              submitted.add(step.pr);
              s.apply({
                type: "PR_SUBMITTED",
                pr: step.pr,
                facts: s.facts(step.pr),
                priority: parsePriority(step.level),
              });
            } else if (step.kind === "priority") {
              const entry = s.state.prs[String(step.pr)];
              if (!entry || entry.mergeId !== null) continue;
              s.apply({
                type: "PR_PRIORITY_CHANGED",
                pr: step.pr,
                priority: parsePriority(step.level),
                by: "prop",
              });
              expect(s.state.prs[String(step.pr)]?.priority.name).to.equal(step.level);
            } else if (step.kind === "pass") {
              const running = Object.values(s.state.runs).find((r) => r.status === "RUNNING");
              if (running) s.apply({ type: "TEST_RUN_FINISHED", runId: running.id, outcome: "PASSED" });
            } else {
              const merge = Object.values(s.state.merges)[0];
              if (merge) s.apply({ type: "MERGE_FINISHED", mergeId: merge.id, outcome: "MERGED" });
            }
            waitingInPriorityOrder(s);
          }
          // Batches still forming start once their wait is over.
          s.now += 10 * 60_000;
          s.apply({ type: "TIME_PASSED" });
          drain(s);
          expect(Object.keys(s.state.prs), "nothing left in the queue").to.deep.equal([]);
          for (const n of submitted) expect(s.finalStates.get(n), `PR ${letter(n)}`).to.equal("MERGED");
        },
      ),
      { numRuns: 300 },
    );
  });
});
