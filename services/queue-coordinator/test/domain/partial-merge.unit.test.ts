import { expect } from "chai";
import { Scenario } from "./scenario-table.js";

describe("planner: a merge that landed only some of its PRs (GitHub's merge API refused midway)", () => {
  it("marks the PRs that landed merged and re-tests only the rest on the moved target", () => {
    const s = new Scenario({ batch: true, batchingMinSize: 3, concurrency: 2 }).play([
      ["submit A", {}, []],
      ["submit B", {}, []],
      ["submit C", { A: "TESTING", B: "TESTING", C: "TESTING" }, ["test ABC"]],
      ["pass ABC", {}, ["merge ABC"]],
      ["partly-merged A AB", { A: "MERGED", B: "MERGED" }, ["test C"]],
    ]);
    expect(s.stateOf("C")).to.not.equal("MERGED");
    expect(Object.keys(s.state.merges)).to.deep.equal([]);
    s.play([
      ["pass C", {}, ["merge C"]],
      ["merged C", { C: "MERGED" }, []],
    ]);
  });

  it("a TARGET_MOVED result that names no PR restarts everything, as before", () => {
    new Scenario({ batch: true, batchingMinSize: 2, concurrency: 2 }).play([
      ["submit A", {}, []],
      ["submit B", {}, ["test AB"]],
      ["pass AB", {}, ["merge AB"]],
      ["partly-merged A", {}, ["test AB"]],
    ]);
  });
});
