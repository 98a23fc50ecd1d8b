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
    new Scenario({ batch: true, batchingMinSize: 2, concurrency: 2 }).play([
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["fail AB", { A: "PENDING_FAILURE" }, ["bisect A"]],
      // The search is not in the line: it goes on, and AB does not come back into line to fail again.
      ["submit U urgent", { U: "TESTING", A: "PENDING_FAILURE", B: "PENDING_FAILURE" }, ["test U"]],
      ["pass A", { A: "PENDING" }, ["bisect B on A"]],
    ]);
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
