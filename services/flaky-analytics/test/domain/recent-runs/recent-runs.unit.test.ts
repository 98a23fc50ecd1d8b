import { expect } from "chai";
import { RECENT_RUNS_KEPT, runOutcome, withRecentRun, type RecentRun } from "../../../src/domain/index.js";

const run = (at: number, outcome: RecentRun["outcome"] = "passed"): RecentRun => ({
  at,
  outcome,
  context: "ci",
  branch: "main",
  commitSha: "abc",
});

describe("a test's recent runs", () => {
  it("tells a flaky run (failed, then passed on retry) from a failed and a passed one", () => {
    expect(runOutcome(["failed", "passed"])).to.equal("flaky");
    expect(runOutcome(["passed", "error"])).to.equal("failed");
    expect(runOutcome(["passed"])).to.equal("passed");
    expect(runOutcome(["failed", "skipped"])).to.equal("failed");
    expect(runOutcome(["skipped"])).to.equal(undefined);
  });

  it("keeps the latest runs in time order, whatever order the uploads arrive in", () => {
    let runs: RecentRun[] = [];
    for (const at of [5, 1, 3]) runs = withRecentRun(runs, run(at));
    expect(runs.map((r) => r.at)).to.deep.equal([1, 3, 5]);
  });

  it(`keeps at most ${RECENT_RUNS_KEPT}, dropping the oldest, and ignores a late run older than all`, () => {
    let runs: RecentRun[] = [];
    for (let at = 1; at <= RECENT_RUNS_KEPT + 3; at++) runs = withRecentRun(runs, run(at * 10));
    expect(runs).to.have.length(RECENT_RUNS_KEPT);
    expect(runs[0]?.at).to.equal(40);
    const before = runs;
    runs = withRecentRun(runs, run(1, "failed"));
    expect(runs.map((r) => r.at)).to.deep.equal(before.map((r) => r.at));
    expect(before, "the old array is left as it was").to.have.length(RECENT_RUNS_KEPT);
  });
});
