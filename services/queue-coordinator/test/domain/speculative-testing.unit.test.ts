import { expect } from "chai";
import { Scenario } from "./scenario-table.js";

describe("planner: speculative testing", () => {
  it("tests each PR on top of everything ahead of it, within the concurrency", () => {
    new Scenario({ concurrency: 2 }).play([
      ["submit A", { A: "TESTING" }, ["test A"]],
      ["submit B", { B: "TESTING" }, ["test B on A"]],
      ["submit C", { C: "PENDING" }, []],
      ["pass B", { B: "TESTS_PASSED" }, ["test C on AB"]],
      ["pass A", { A: "TESTS_PASSED" }, ["merge A"]],
      ["pass C", { C: "TESTS_PASSED" }, []],
      ["merged A", { A: "MERGED" }, ["merge B"]],
      ["merged B", { B: "MERGED" }, ["merge C"]],
      ["merged C", { C: "MERGED" }, []],
    ]);
  });

  it("restarts everything behind a PR that fails and tests without it", () => {
    new Scenario({ concurrency: 3 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["submit C", {}, ["test C on AB"]],
      [
        "fail A",
        { A: "FAILED", B: "TESTING", C: "TESTING" },
        ["cancel B", "cancel C", "test B", "test C on B"],
      ],
      ["pass B", {}, ["merge B"]],
    ]);
  });

  it("ignores a result for a cancelled run and a result delivered twice", () => {
    const s = new Scenario({ concurrency: 2 });
    s.play([
      ["submit A", {}],
      ["submit B", {}],
    ]);
    const stale = s.runningRunFor("B");
    s.play([["fail A", { A: "FAILED", B: "TESTING" }]]);
    const before = s.state;
    const step = s.apply({ type: "TEST_RUN_FINISHED", runId: stale, outcome: "PASSED" });
    expect(step.decisions).to.deep.equal([]);
    expect(step.state).to.deep.equal(before);
    s.play([["pass B", { B: "TESTS_PASSED" }, ["merge B"]]]);
    const runId = s.state.merges["merge-1"]?.runId ?? "";
    const again = s.apply({ type: "TEST_RUN_FINISHED", runId, outcome: "FAILED" });
    expect(again.decisions).to.deep.equal([]);
    expect(s.stateOf("B")).to.equal("TESTS_PASSED");
  });

  it("restarts every run when the target branch moves outside the queue", () => {
    new Scenario({ concurrency: 2 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["pass B", { B: "TESTS_PASSED" }],
      ["target-moved", { A: "TESTING", B: "TESTING" }, ["cancel A", "test A", "test B on A"]],
    ]);
  });

  it("fails a run that exceeds the testing timeout", () => {
    const s = new Scenario({ testingTimeoutMinutes: 30 });
    s.play([["submit A", {}, ["test A"]]]);
    expect(s.last?.wakeAt).to.equal(30 * 60_000);
    s.play([["wait 30", { A: "FAILED" }, ["cancel A"]]]);
    expect(s.last?.notices.some((n) => n.type === "PR_STATE_CHANGED" && n.reason === "TIMED_OUT")).to.be.true;
  });
});
