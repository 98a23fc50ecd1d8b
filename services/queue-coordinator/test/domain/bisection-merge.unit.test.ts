import { Scenario, type Row } from "./scenario-table.js";

// Tenth pass (issue 27): a group a bisection cleared merges from its own run whenever that run still tests what
// would land, judged per run instead of per bisection. At the end of a load and in quiet hours the line behind the
// bisected batch has merged by the time the search ends, so every later group used to go back into the line and be
// tested a second time on exactly the same branch (loaded-2's last half hour of runs).
/** The stacked search, whose groups may merge from their own runs (ISOLATED ones always go back into the line). */
const stacked = () =>
  new Scenario({ bisectionMode: "STACKED", batch: true, batchingMinSize: 2, concurrency: 2 });

/** AB is tested, CD speculatively on top of it, and AB fails: every case starts here. */
const AB_FAILED_UNDER_CD: Row[] = [
  ["submit A", {}],
  ["submit B", {}, ["test AB"]],
  ["submit C", {}],
  ["submit D", {}, ["test CD on AB"]],
  // AB steps aside; CD starts again without it, so the search goes one combination at a time.
  ["fail AB", { A: "PENDING_FAILURE" }, ["cancel CD", "bisect A", "test CD"]],
];

describe("planner: a bisection's group merges from a run that tests what lands", () => {
  it("a run started after the target moved, with nothing behind in flight, merges its group", () => {
    stacked().play([
      ...AB_FAILED_UNDER_CD,
      ["pass CD", { C: "TESTS_PASSED" }, ["merge CD"]],
      // The target moved since the bisection began: before this rule every good group went back into the line.
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
      ["fail A", { A: "FAILED" }, ["bisect B"]],
      // B's run started on the target as it is now and nothing is in flight behind it: it is what lands.
      ["pass B", { B: "TESTS_PASSED" }, ["merge B"]],
      ["merged B", { B: "MERGED" }, []],
    ]);
  });

  it("a run the target moved under goes back into the line", () => {
    stacked().play([
      ...AB_FAILED_UNDER_CD,
      ["fail A", { A: "FAILED" }, ["bisect B"]],
      // CD merges while B's run is in flight: B's run no longer has the target under it.
      ["pass CD", { C: "TESTS_PASSED" }, ["merge CD"]],
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
      ["pass B", { B: "TESTING" }, ["test B"]],
      ["pass B", { B: "TESTS_PASSED" }, ["merge B"]],
      ["merged B", { B: "MERGED" }, []],
    ]);
  });

  it("a run that passed while a batch behind is in flight still goes back into the line", () => {
    stacked().play([
      ...AB_FAILED_UNDER_CD,
      ["fail A", { A: "FAILED" }, ["bisect B"]],
      // CD started without B and is still testing: merging B now would make CD's run stale.
      ["pass B", { B: "TESTING" }, ["test B on CD"]],
    ]);
  });

  it("a run started while a merge is in flight goes back into the line", () => {
    stacked().play([
      ...AB_FAILED_UNDER_CD,
      ["pass CD", { C: "TESTS_PASSED" }, ["merge CD"]],
      // B's run starts on the target without CD, which lands before B could.
      ["fail A", { A: "FAILED" }, ["bisect B"]],
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
      ["pass B", { B: "TESTING" }, ["test B"]],
    ]);
  });
});
