import { Scenario } from "./scenario-table.js";

// Tenth pass, follow-up: on the generated loads every flaky two-PR bisection run failed a good PR. Once the search
// has named a culprit, that culprit explains the batch's failure; a wider segment failing after it (CD on B) with its
// first half passing (C on B) is then the only failure against D, and one run may be a flake: D gets a run of its own.
describe("planner: a culprit named after the batch's failure is explained needs a run of its own", () => {
  const settings = { batch: true, batchingMinSize: 4, concurrency: 1, bisectionConcurrency: 2 };
  const upToC = (s: Scenario): Scenario =>
    s.play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["fail ABCD", {}, ["bisect AB", "bisect C on AB"]],
      ["fail AB", {}, ["cancel C", "bisect A", "bisect CD on A"]],
      // A is the culprit: it explains ABCD's failure.
      ["fail A", { A: "FAILED" }, ["cancel CD", "bisect B", "bisect CD on B"]],
      ["pass B", { B: "TESTS_PASSED" }, ["merge B"]],
      ["merged B", { B: "MERGED" }, []],
      ["fail CD", { C: "PENDING_FAILURE", D: "PENDING_FAILURE" }, ["bisect C"]],
    ]);

  it("CD on B failed and C on B passed: D is tested alone before it fails, and merges if that run passes", () => {
    upToC(new Scenario(settings)).play([
      ["pass C", { C: "TESTS_PASSED", D: "PENDING_FAILURE" }, ["bisect D on C", "merge C"]],
      ["merged C", { C: "MERGED" }, []],
      ["pass D", { D: "TESTS_PASSED" }, ["merge D"]],
      ["merged D", { D: "MERGED" }, []],
    ]);
  });

  it("a culprit that really is bad fails on its own run", () => {
    upToC(new Scenario(settings)).play([
      ["pass C", { C: "TESTS_PASSED", D: "PENDING_FAILURE" }, ["bisect D on C", "merge C"]],
      ["fail D", { D: "FAILED" }, []],
    ]);
  });
});
