import { expect } from "chai";
import { Scenario } from "./scenario-table.js";

describe("planner: priorities", () => {
  it("an urgent PR starts at once and pushes the rest back", () => {
    new Scenario({ concurrency: 2 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      [
        "submit U urgent",
        { U: "TESTING", A: "TESTING", B: "PENDING" },
        ["cancel A", "cancel B", "test U", "test A on U"],
      ],
      ["pass U", {}, ["merge U", "test B on UA"]],
    ]);
  });

  it("an urgent PR leaves a failed batch being searched aside alone", () => {
    new Scenario({ bisectionMode: "STACKED", batch: true, batchingMinSize: 2, concurrency: 2 }).play([
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["fail AB", { A: "PENDING_FAILURE" }, ["bisect A"]],
      // The search is not in the line: it goes on, and AB does not come back into line to fail again.
      ["submit U urgent", { U: "TESTING", A: "PENDING_FAILURE", B: "PENDING_FAILURE" }, ["test U"]],
      ["pass A", { A: "PENDING" }, ["bisect B on A"]],
    ]);
  });

  it("a PR that re-forms the batch a searched group went back into restarts no run of the search", () => {
    const s = new Scenario({
      bisectionMode: "STACKED",
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 1,
      concurrency: 2,
    });
    s.play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["fail ABCD", { A: "PENDING_FAILURE" }, ["bisect AB", "bisect C on AB"]],
      ["submit E", {}, []],
      // The line moves on without the failed batch: the search's good groups can only go back into it.
      ["wait 1", { E: "TESTING" }, ["test E"]],
      // Such a search keeps one combination in flight: the speculative one on top of AB stops.
      ["submit P high", { P: "PENDING" }, ["cancel C"]],
      // AB passed: A and B go back into line, behind E (started) and P (more urgent), in P's forming batch.
      ["pass AB", { A: "PENDING", B: "PENDING", C: "PENDING_FAILURE" }, ["bisect C on AB"]],
      // H goes between P and A: the batch PAB is cut again (PHAB). The search's run of C on AB is
      // left alone: CD stays aside, E is not restarted behind a failed batch back in line.
      [
        "submit H high",
        { H: "TESTING", A: "TESTING", C: "PENDING_FAILURE", D: "PENDING_FAILURE", E: "TESTING" },
        ["test PHAB on E"],
      ],
      ["pass C", { C: "PENDING", D: "PENDING_FAILURE" }, ["bisect D on ABC"]],
      ["fail D", { D: "FAILED" }, []],
      ["pass E", { E: "TESTS_PASSED" }, ["merge E", "test C on EPHAB"]],
      ["merged E", { E: "MERGED" }, []],
      ["pass PHAB", {}, ["merge PHAB"]],
      ["merged P", { P: "MERGED", H: "MERGED", A: "MERGED", B: "MERGED" }, []],
      ["pass C", {}, ["merge C"]],
      ["merged C", { C: "MERGED" }, []],
    ]);
    expect(s.changesOf("C"), "C never went back into line as a re-formed batch").not.to.include(
      "PENDING BATCH_REFORMED",
    );
  });

  it("an urgent PR takes a slot from the latest run in another lane", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 2 }).play([
      ["submit A", {}],
      ["targets A x", {}, ["test A"]],
      ["submit B", {}],
      ["targets B y", {}, ["test B"]],
      ["submit U urgent", {}],
      ["targets U z", { U: "TESTING", B: "PENDING", A: "TESTING" }, ["cancel B", "test U"]],
    ]);
  });

  it("a higher priority overtakes PRs that have not started, never running ones", () => {
    new Scenario({ concurrency: 1 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B low", {}, []],
      ["submit C", {}, []],
      ["submit H high", { A: "TESTING", H: "PENDING" }, []],
      ["pass A", {}, ["merge A", "test H on A"]],
      ["merged A", {}, []],
      ["pass H", {}, ["merge H", "test C on H"]],
    ]);
  });

  it("keeps FIFO order within a priority level", () => {
    new Scenario({ concurrency: 3 }).play([
      ["submit A high", {}, ["test A"]],
      ["submit B high", {}, ["test B on A"]],
      ["submit C high", {}, ["test C on AB"]],
    ]);
  });
});
