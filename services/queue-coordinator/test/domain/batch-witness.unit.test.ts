import { expect } from "chai";
import { runTesting } from "../../src/domain/index.js";
import { num } from "./scenario-table.js";
import { play, type Row } from "./test-aware-scenario.js";

/**
 * A failed batch's witness (witness.ts): the run built on it that is about to end goes on instead of being
 * cancelled, and the batch's search waits for it. A pass clears the batch without a search run.
 */
describe("planner: a failed batch and the run built on it", () => {
  const pairs = {
    concurrency: 2,
    bisectionConcurrency: 4,
    batch: true,
    batchingMinSize: 2,
    batchingMaxWaitTimeMinutes: 120,
  };
  // CD's run starts with AB's: it ends about when AB's did, so it is worth waiting for.
  const failedTogether: Row[] = [
    ["submit A", {}],
    ["submit B", {}, ["test AB"]],
    ["submit C", {}],
    ["submit D", {}, ["test CD on AB"]],
    ["wait 30", {}],
    // CD restarts without AB, as usual; its old run goes on as AB's witness, and AB's search starts no run yet.
    ["fail-tests AB r1", { A: "PENDING_FAILURE", B: "PENDING_FAILURE", C: "TESTING" }, ["test CD"]],
  ];

  it("sends the batch back into the line, searched by no run, when that run passes: its failure was a flake", () => {
    const s = play(pairs, [
      ...failedTogether,
      // A and B go back into the line behind CD, tested in line as a search's cleared PRs are.
      ["pass ABCD", { A: "TESTING", B: "TESTING", C: "TESTING" }, ["test AB on CD"]],
      ["pass CD", { C: "TESTS_PASSED" }, ["merge CD"]],
    ]);
    expect(s.detailsOf("A")).to.include(
      "the run built on it (with #2, #3, #4) passed: its own run's failure was a flake",
    );
    // AB, CD, CD again, and AB in line: no run of the search's own.
    expect(s.runsStarted()).to.equal(4);
  });

  it("tests the pair's first PR alone when that run fails the same test, and fails the second with no run of its own", () => {
    const s = play(pairs, [
      ...failedTogether,
      // Two runs failed r1: the pair holds a bad PR. B waits for A's run.
      ["fail-tests ABCD r1", { A: "PENDING_FAILURE", C: "TESTING" }, ["bisect A"]],
      // A goes back into the line (the target moved under its run), and B fails on the two runs.
      ["pass A", { A: "TESTING", B: "FAILED" }, ["test A on CD"]],
    ]);
    // Its history says what decided it, since no run of its own did.
    expect(s.failedDetailOf("B")).to.equal(
      "its run with #1 failed a test the run built on it failed too, and #1 passed on its own",
    );
    // AB, CD (the witness), CD again, A, and A in line: B had no run of its own.
    expect(s.runsStarted()).to.equal(5);
  });

  it("sends the pair's second PR back into the line untested when the first fails that test alone", () => {
    play(pairs, [
      ...failedTogether,
      ["fail-tests ABCD r1", { A: "PENDING_FAILURE" }, ["bisect A"]],
      ["fail-tests A r1", { A: "FAILED", B: "TESTING" }, ["test B on CD"]],
    ]);
  });

  it("searches the batch when that run fails only other tests: they say nothing of the batch", () => {
    play(pairs, [
      ...failedTogether,
      ["fail-tests ABCD r2", { A: "PENDING_FAILURE" }, ["bisect A", "bisect B"]],
    ]);
  });

  it("shows each PR under the run that decides it: the batch's under the witness, the PRs behind under their own", () => {
    const s = play(pairs, failedTogether);
    expect(runTesting(s.state, num("B"))).to.equal(s.runningRunFor("ABCD"));
    expect(runTesting(s.state, num("C"))).to.equal(s.runningRunFor("CD"));
  });

  it("fails no PR behind when that run conflicts on it, and drops a member it conflicts on from the search", () => {
    play(pairs, [
      ...failedTogether,
      ["conflict ABCD C", { A: "PENDING_FAILURE", C: "TESTING" }, ["bisect A", "bisect B"]],
      ["pass CD", { C: "TESTS_PASSED" }, ["merge CD"]],
    ]);
    play(pairs, [
      ...failedTogether,
      ["conflict ABCD B", { B: "FAILED", A: "PENDING_FAILURE" }, ["bisect A"]],
    ]);
  });

  it("does not wait for a run built on the batch that started long after it: it searches at once", () => {
    play(pairs, [
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["wait 20", {}],
      ["submit C", {}],
      ["submit D", {}, ["test CD on AB"]],
      ["wait 10", {}],
      // AB's run took 30 minutes; CD's has 20 to go, more than half of that.
      [
        "fail-tests AB r1",
        { A: "PENDING_FAILURE", C: "TESTING" },
        ["cancel CD", "bisect A", "bisect B", "test CD"],
      ],
    ]);
  });
});
