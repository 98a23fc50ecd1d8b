import { expect } from "chai";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import { num, Scenario } from "./scenario-table.js";

/** The order the queue holds, as letters (A = #1). */
const order = (s: Scenario) => s.state.order.map((n) => String.fromCharCode(64 + n)).join("");

describe("planner: changing a queued PR's priority", () => {
  it("a waiting PR raised to high overtakes the PRs that have not started and runs next", () => {
    const s = new Scenario({ concurrency: 1 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, []],
      ["submit C", {}, []],
      ["priority C high", { C: "PENDING" }, []],
    ]);
    expect(order(s)).to.equal("ACB");
    s.play([["pass A", {}, ["merge A", "test C on A"]]]);
  });

  it("keeps FIFO within a level by the time each PR joined the line, not by the time of the change", () => {
    const s = new Scenario({ concurrency: 1 });
    s.play([["submit A", {}, ["test A"]]]);
    s.now = 1;
    s.play([["submit B high", {}]]);
    s.now = 2;
    s.play([["submit C", {}]]);
    s.now = 3;
    s.play([["submit D high", {}]]);
    expect(order(s)).to.equal("ABDC");
    s.now = 4;
    // C joined before D: raised to high, it goes behind B (earlier) and ahead of D (later).
    s.play([["priority C high", {}]]);
    expect(order(s)).to.equal("ABCD");
    // Lowered back to medium it returns behind D, as if it had always been medium.
    s.play([["priority C medium", {}]]);
    expect(order(s)).to.equal("ABDC");
  });

  it("a lowered PR steps behind the waiting PRs it now yields to", () => {
    const s = new Scenario({ concurrency: 1 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}],
      ["submit C", {}],
      ["priority B low", {}, []],
    ]);
    expect(order(s)).to.equal("ACB");
    s.play([["pass A", {}, ["merge A", "test C on A"]]]);
  });

  it("a PR under test keeps its place and its run; the change is recorded", () => {
    const s = new Scenario({ concurrency: 2 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["priority B urgent", { B: "TESTING" }, []],
      ["priority A low", { A: "TESTING" }, []],
    ]);
    expect(order(s)).to.equal("AB");
    const b = s.state.prs[String(num("B"))];
    expect(b?.priority).to.include({ value: 0, name: "urgent" });
    expect(b?.priorityChanges).to.deep.equal([{ at: 0, from: 100, to: 0, by: "tester" }]);
  });

  it("raised to urgent, a waiting PR starts at once and pushes the running ones back", () => {
    const s = new Scenario({ concurrency: 2 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["submit C", {}, []],
      [
        "priority C urgent",
        { C: "TESTING", B: "PENDING" },
        ["cancel A", "cancel B", "test C", "test A on C"],
      ],
    ]);
    expect(order(s)).to.equal("CAB");
  });

  it("re-forms the batches that have not started around the moved PR", () => {
    const s = new Scenario({ concurrency: 1, batch: true, batchingMinSize: 2 }).play([
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["submit C", {}],
      ["submit D", {}],
      ["submit E", {}],
      ["priority E high", {}, []],
    ]);
    expect(order(s)).to.equal("ABECD");
    s.play([["pass AB", {}, ["merge AB", "test EC on AB"]]]);
  });

  it("a NOT_READY PR takes its place by the new priority when it becomes ready", () => {
    const s = new Scenario({ concurrency: 1 });
    s.play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}],
    ]);
    s.apply({ type: "PR_SUBMITTED", pr: num("C") });
    s.play([["priority C high", {}, []]]);
    expect(s.stateOf("C")).to.equal("NOT_READY");
    s.apply({ type: "PR_FACTS_UPDATED", pr: num("C"), facts: s.facts(num("C")) });
    expect(order(s)).to.equal("ACB");
  });

  it("asking for the current level changes nothing and records nothing", () => {
    const s = new Scenario().play([
      ["submit A", {}],
      ["submit B", {}],
    ]);
    const step = s.do("priority B medium");
    expect(step.notices).to.deep.equal([]);
    expect(step.decisions).to.deep.equal([]);
    expect(s.state.prs[String(num("B"))]?.priorityChanges ?? []).to.deep.equal([]);
    expect(s.state.prs[String(num("B"))]?.priority.usedDefault).to.equal(false);
  });

  it("publishes who changed what", () => {
    const s = new Scenario().play([
      ["submit A", {}],
      ["submit B", {}],
    ]);
    const step = s.do("priority B 42");
    expect(step.notices).to.deep.equal([
      {
        type: "PR_PRIORITY_CHANGED",
        pr: 2,
        entryId: s.state.prs["2"]?.id,
        from: 100,
        to: 42,
        by: "tester",
        at: 0,
      },
    ]);
  });

  it("refuses a PR being merged, one not in the queue and a value out of range", () => {
    const s = new Scenario({ concurrency: 1 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}],
    ]);
    expect(() => s.do("priority B 256")).to.throw(InvalidArgumentError, /priority/);
    expect(() => s.do("priority B soon")).to.throw(InvalidArgumentError, /priority/);
    expect(() => s.do("priority Z high")).to.throw(NotFoundError, /not in the queue/);
    s.play([["pass A", {}, ["merge A", "test B on A"]]]);
    expect(() => s.do("priority A high")).to.throw(FailedPreconditionError, /being merged/);
  });
});
