import { expect } from "chai";
import fc from "fast-check";
import { driveToCompletion, type RunAnswer } from "./fake-ci.js";
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

  it("two flakes on different tests never fail a good PR, whichever run of the search the second hits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4 }), fc.integer({ min: 1, max: 4 }), (size, hit) => {
        // Two batches, the second built on the first: when the first fails, the line goes on without it and
        // it is searched on the target alone (an independent search).
        const s = new Scenario({
          batch: true,
          batchingMinSize: size,
          concurrency: 2,
          bisectionConcurrency: 4,
        });
        const letters = [...LETTERS.slice(0, 2 * size)];
        for (const l of letters) s.do(`submit ${l}`);
        const flake = (n: number): RunAnswer => {
          const id = `00000000-0000-5000-8000-${String(n).padStart(12, "0")}`;
          const healthy = {
            status: "healthy",
            quarantined: false,
            statusSince: null,
            failedOnTargetAt: null,
          } as const;
          return {
            outcome: "FAILED",
            tests: { failed: [{ id, name: `flaky ${n}` }], truncated: false },
            knowledge: { quarantiningEnabled: true, tests: { [id]: healthy } },
          };
        };
        let mainRuns = 0;
        let searchRuns = 0;
        // The first batch's run flakes; then the search's hit-th run flakes on a test of its own.
        driveToCompletion(s, new Set(), 300, (run) => {
          if (run.kind === "main") return ++mainRuns === 1 ? flake(0) : undefined;
          return ++searchRuns === hit ? flake(searchRuns) : undefined;
        });
        expect(letters.map((l) => s.stateOf(l))).to.deep.equal(letters.map(() => "MERGED"));
      }),
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

  it("a failed batch that a run built on it passed with is tested again in its place, and the run behind it stays", () => {
    new Scenario({ bisectionMode: "STACKED", batch: true, batchingMinSize: 2, concurrency: 2 }).play([
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["submit C", {}],
      ["submit D", {}, ["test CD on AB"]],
      ["pass CD", { C: "TESTS_PASSED", D: "TESTS_PASSED" }, []],
      // CD passed with A and B in its base: AB's failure was a flake. No bisection, CD not restarted.
      ["fail AB", { A: "TESTING", B: "TESTING", C: "TESTS_PASSED" }, ["test AB"]],
      ["pass AB", { A: "TESTS_PASSED" }, ["merge AB"]],
      ["merged A", { A: "MERGED", B: "MERGED" }, ["merge CD"]],
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
    ]);
    // Once only: a second failure is searched as usual.
    new Scenario({ bisectionMode: "STACKED", batch: true, batchingMinSize: 2, concurrency: 2 }).play([
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["submit C", {}],
      ["submit D", {}, ["test CD on AB"]],
      ["pass CD", { C: "TESTS_PASSED" }, []],
      ["fail AB", { A: "TESTING" }, ["test AB"]],
      ["fail AB", { A: "PENDING_FAILURE", C: "TESTING" }, ["bisect A", "test CD"]],
    ]);
  });

  it("a PR tested alone whose run fails is tested once more, and fails only if that fails too", () => {
    const settings = { batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1 };
    new Scenario(settings).play([
      ["submit A", {}],
      ["wait 1", { A: "TESTING" }, ["test A"]],
      ["fail A", { A: "PENDING_FAILURE" }, ["bisect A"]],
      ["pass A", { A: "TESTS_PASSED" }, ["merge A"]],
      ["merged A", { A: "MERGED" }, []],
    ]);
    new Scenario(settings).play([
      ["submit A", {}],
      ["wait 1", { A: "TESTING" }, ["test A"]],
      ["submit B", { B: "PENDING" }, []],
      ["fail A", { A: "PENDING_FAILURE" }, ["bisect A"]],
      ["fail A", { A: "FAILED" }, []],
      ["wait 1", { B: "TESTING" }, ["test B"]],
    ]);
  });

  it("in parallel lanes a bisection's passing group still merges after another lane merged", () => {
    new Scenario({
      mode: "PARALLEL",
      concurrency: 2,
      batch: true,
      batchingMinSize: 2,
      batchingMaxWaitTimeMinutes: 1,
    }).play([
      ["submit A", {}],
      ["targets A front", {}],
      ["submit B", {}],
      ["targets B front", {}, ["test AB"]],
      ["submit C", {}],
      ["targets C back", {}],
      ["wait 1", { C: "TESTING" }, ["test C"]],
      ["fail AB", { A: "PENDING_FAILURE", B: "PENDING_FAILURE" }, ["bisect A"]],
      ["pass C", {}, ["merge C"]],
      ["merged C", { C: "MERGED" }, []],
      // C shares no target with A: the target moved only outside A's lane, so A merges as tested.
      ["pass A", { A: "TESTS_PASSED" }, ["bisect B on A", "merge A"]],
      ["merged A", { A: "MERGED" }, []],
      ["pass B", { B: "TESTS_PASSED" }, ["merge B"]],
      ["merged B", { B: "MERGED" }, []],
    ]);
  });
});
