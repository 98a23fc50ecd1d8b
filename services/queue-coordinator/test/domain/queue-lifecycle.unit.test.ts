import { expect } from "chai";
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
} from "@mainline/kit/errors/index";
import {
  parseImpactedTargets,
  parsePriority,
  parseSettingsPatch,
  prNumber,
} from "../../src/api/command-parser.js";
import { Scenario } from "./scenario-table.js";

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

describe("planner: commands and queue states", () => {
  it("refuses a duplicate submission, unknown PRs and bad input, changing nothing", () => {
    const s = new Scenario();
    s.do("submit A");
    const before = s.state;
    expect(() => s.do("submit A")).to.throw(AlreadyExistsError);
    expect(() => s.do("cancel Z")).to.throw(NotFoundError);
    expect(() => s.do("restart Z")).to.throw(NotFoundError);
    expect(s.state).to.equal(before);
    // Input is parsed once, at the edge (api/command-parser.ts); the planner takes the parsed values.
    expect(() => prNumber(0)).to.throw(InvalidArgumentError, "pr.number");
    expect(() => parsePriority("asap")).to.throw(InvalidArgumentError, "priority");
    expect(() => parseImpactedTargets("", [])).to.throw(InvalidArgumentError, "pr.sha");
    expect(() => parseImpactedTargets("x", [3])).to.throw(InvalidArgumentError, "impactedTargets");
    expect(() => parseSettingsPatch({ concurrency: 0 })).to.throw(InvalidArgumentError, "concurrency");
  });

  it("never modifies the state it is given", () => {
    const s = new Scenario({ batch: true, batchingMinSize: 2, concurrency: 2 });
    // CD's first run goes on as AB's witness (witness.ts); it fails too, and AB's search begins.
    for (const line of ["submit A", "submit B", "submit C", "submit D", "fail AB", "fail ABCD"]) {
      deepFreeze(s.state);
      s.do(line);
    }
    deepFreeze(s.state);
    s.do("pass A");
  });

  it("waits in NOT_READY for facts, and for a matching base branch", () => {
    const s = new Scenario();
    s.apply({ type: "PR_SUBMITTED", pr: 1 });
    expect(s.stateOf("A")).to.equal("NOT_READY");
    s.apply({ type: "PR_FACTS_UPDATED", pr: 1, facts: { ...s.facts(1), baseBranch: "release" } });
    expect(s.stateOf("A")).to.equal("NOT_READY");
    const step = s.apply({ type: "PR_FACTS_UPDATED", pr: 1, facts: s.facts(1) });
    expect(s.stateOf("A")).to.equal("TESTING");
    expect(step.decisions).to.have.length(1);
  });

  it("cancels a PR that is closed while queued, and refuses closed PRs", () => {
    const s = new Scenario({ concurrency: 2 });
    s.play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["close A", { A: "CANCELLED", B: "TESTING" }, ["cancel A", "cancel B", "test B"]],
    ]);
    expect(() => s.apply({ type: "PR_SUBMITTED", pr: 3, facts: { ...s.facts(3), open: false } })).to.throw(
      FailedPreconditionError,
    );
  });

  it("a new head sha sends the PR back and restarts those behind it", () => {
    new Scenario({ concurrency: 2 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["push A", { A: "TESTING", B: "TESTING" }, ["cancel A", "cancel B", "test B", "test A on B"]],
    ]);
  });

  it("refuses to cancel a PR that is being merged", () => {
    const s = new Scenario();
    s.play([
      ["submit A", {}],
      ["pass A", {}, ["merge A"]],
    ]);
    expect(() => s.do("cancel A")).to.throw(FailedPreconditionError);
  });

  it("PAUSED starts and merges nothing but keeps accepting PRs", () => {
    new Scenario().play([
      ["submit A", {}, ["test A"]],
      ['set {"state":"PAUSED"}', {}, []],
      ["pass A", { A: "TESTS_PASSED" }, []],
      ["submit B", { B: "PENDING" }, []],
      ['set {"state":"RUNNING"}', {}, ["merge A", "test B on A"]],
    ]);
  });

  it("DRAINING refuses new PRs and lets queued ones finish", () => {
    const s = new Scenario();
    s.play([
      ["submit A", {}, ["test A"]],
      ['set {"state":"DRAINING"}', {}, []],
    ]);
    expect(() => s.do("submit B")).to.throw(FailedPreconditionError, /draining/);
    s.play([["pass A", {}, ["merge A"]]]);
  });

  it("a mode change with PRs in flight goes through SWITCHING_MODES by itself", () => {
    const s = new Scenario();
    s.play([
      ["submit A", {}, ["test A"]],
      ['set {"mode":"PARALLEL"}', {}, []],
    ]);
    expect(s.state.queueState).to.equal("SWITCHING_MODES");
    expect(s.state.settings.mode).to.equal("SINGLE");
    expect(() => s.do("submit B")).to.throw(FailedPreconditionError, /switching modes/);
    s.play([
      ["pass A", {}, ["merge A"]],
      ["merged A", { A: "MERGED" }, []],
    ]);
    expect(s.state.queueState).to.equal("RUNNING");
    expect(s.state.settings.mode).to.equal("PARALLEL");
    s.play([["submit B", { B: "NOT_READY" }, []]]);
  });

  it("a mode change on an empty queue applies at once", () => {
    const s = new Scenario();
    s.do('set {"mode":"PARALLEL"}');
    expect(s.state.queueState).to.equal("RUNNING");
    expect(s.state.settings.mode).to.equal("PARALLEL");
  });

  it("records every transition with its time and reason", () => {
    const s = new Scenario();
    s.play([
      ["submit A", {}],
      ["fail A", { A: "FAILED" }],
    ]);
    const final = s.last?.notices.find((n) => n.type === "PR_STATE_CHANGED" && n.to === "FAILED");
    expect(
      final?.type === "PR_STATE_CHANGED" ? final.finalEntry?.history.map((h) => `${h.to}:${h.reason}`) : [],
    ).to.deep.equal([
      "NOT_READY:SUBMITTED",
      "PENDING:READY",
      "TESTING:TEST_RUN_STARTED",
      "PENDING_FAILURE:TESTS_FAILED",
      "FAILED:TESTS_FAILED",
    ]);
  });
});
