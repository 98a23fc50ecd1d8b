import { expect } from "chai";
import {
  NO_RECENT_RUNS,
  RECENT_RUNS_KEPT,
  recentRunColumns,
  recentRunList,
  runOutcome,
  withRecentRun,
  type RecentRun,
  type RecentRuns,
} from "../../../src/domain/index.js";

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
    let runs: RecentRuns = NO_RECENT_RUNS;
    for (const at of [5, 1, 3]) runs = withRecentRun(runs, run(at));
    expect(recentRunList(runs).map((r) => r.at)).to.deep.equal([1, 3, 5]);
  });

  it(`keeps at most ${RECENT_RUNS_KEPT}, dropping the oldest, and ignores a late run older than all`, () => {
    let runs: RecentRuns = NO_RECENT_RUNS;
    for (let at = 1; at <= RECENT_RUNS_KEPT + 3; at++) runs = withRecentRun(runs, run(at * 10));
    expect(recentRunList(runs)).to.have.length(RECENT_RUNS_KEPT);
    expect(recentRunList(runs)[0]?.at).to.equal(40);
    const before = runs;
    runs = withRecentRun(runs, run(1, "failed"));
    expect(recentRunList(runs)).to.deep.equal(recentRunList(before));
    expect(recentRunList(before), "the old runs are left as they were").to.have.length(RECENT_RUNS_KEPT);
  });

  it("gives back every field of a run, the pull request only when there was one", () => {
    const list: RecentRun[] = [
      { at: 1, outcome: "flaky", context: "merge_queue", branch: "mq/1", commitSha: "c1", prNumber: 7 },
      { at: 2, outcome: "failed", context: "ci", branch: "main", commitSha: "c2" },
    ];
    expect(recentRunList(recentRunColumns(list))).to.deep.equal(list);
    expect(recentRunList(withRecentRun(NO_RECENT_RUNS, list[0] as RecentRun))).to.deep.equal([list[0]]);
  });
});
