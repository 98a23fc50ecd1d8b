import { expect } from "chai";
import fc from "fast-check";
import { driveToCompletion } from "./fake-ci.js";
import { Scenario } from "./scenario-table.js";

const LETTERS = "ABCDEFGH";

describe("planner: a failure whose bisection finds no culprit is a flake", () => {
  it("a flake alone never fails a good PR: every PR of the batch merges", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: null }),
        fc.integer({ min: 0, max: 2 }),
        (size, concurrency, bisectionConcurrency, pendingFailureDepth) => {
          const s = new Scenario({
            batch: true,
            batchingMinSize: size,
            concurrency,
            bisectionConcurrency,
            pendingFailureDepth,
          });
          const members = [...LETTERS.slice(0, size)];
          for (const l of members) s.do(`submit ${l}`);
          const run = Object.values(s.state.runs).find((r) => r.kind === "main" && r.status === "RUNNING");
          expect(run?.prs, "the full batch is under test").to.have.length(size);
          // The batch's run fails, but no PR is bad: a flake.
          s.apply({ type: "TEST_RUN_FINISHED", runId: run?.id as string, outcome: "FAILED" });
          driveToCompletion(s, new Set());
          expect(members.map((l) => s.stateOf(l))).to.deep.equal(members.map(() => "MERGED"));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("the PRs of a flaky batch merge from the bisection's passing runs", () => {
    new Scenario({ batch: true, batchingMinSize: 4 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["fail ABCD", { A: "PENDING_FAILURE" }, ["bisect AB"]],
      ["pass AB", { A: "TESTS_PASSED", B: "TESTS_PASSED" }, ["bisect C on AB", "merge AB"]],
      ["merged A", { A: "MERGED", B: "MERGED" }, []],
      // ABCD failed and ABC passes: the batch run alone cannot make D the culprit, D is tested.
      ["pass C", { C: "TESTS_PASSED" }, ["bisect D on C", "merge C"]],
      ["merged C", { C: "MERGED" }, []],
      ["pass D", { D: "TESTS_PASSED" }, ["merge D"]],
      ["merged D", { D: "MERGED" }, []],
    ]);
  });
});
