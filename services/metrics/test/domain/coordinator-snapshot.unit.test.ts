import { expect } from "chai";
import {
  planReconcile,
  runKeyOf,
  timelineKeyOf,
  type CoordinatorSnapshot,
} from "../../src/domain/coordinator-snapshot.js";
import { advanceTimeline, type PullRequestTimeline } from "../../src/domain/pull-request-timeline.js";
import type { ActiveTestRun } from "../../src/domain/test-run-facts.js";
import { MINUTE, transition, widgets } from "./fixtures.js";

function timeline(pr: number, minute: number): PullRequestTimeline {
  return advanceTimeline(undefined, transition(pr, null, "PENDING", minute)).timeline as PullRequestTimeline;
}

const run = (runId: string): ActiveTestRun => ({ runId, queue: widgets, kind: "main", startedAt: 0 });

function local(timelines: PullRequestTimeline[], runs: ActiveTestRun[], touched: string[] = []) {
  return {
    timelines: new Map(timelines.map((t) => [timelineKeyOf(t), t])),
    runs: new Map(runs.map((r) => [r.runId, r])),
    touchedSince: (key: string) => touched.includes(key),
  };
}

describe("re-deriving the gauges from the coordinator's snapshot", () => {
  const snapshot: CoordinatorSnapshot = {
    queues: [widgets],
    pullRequests: [
      { queue: widgets, pr: 1, state: "PENDING", stateChangedAt: 0 },
      { queue: widgets, pr: 2, state: "TESTING", stateChangedAt: 5 * MINUTE },
      { queue: widgets, pr: 3, state: "NOT_READY", stateChangedAt: 6 * MINUTE },
    ],
    runs: [run("r2")],
  };

  it("takes the coordinator's word for what no event touched since it was asked", () => {
    const plan = planReconcile(
      local([timeline(1, 0), timeline(2, 1), timeline(9, 1)], [run("r9")]),
      snapshot,
    );
    // PR 1 agrees; PR 2 moved on unseen; PR 3 was never seen; PR 9 left unseen; run r9 ended unseen.
    expect(plan.putTimelines.map((t) => [t.pr, t.state, t.stateSince, t.complete])).to.deep.equal([
      [2, "TESTING", 5 * MINUTE, false],
      [3, "NOT_READY", 6 * MINUTE, false],
    ]);
    expect(plan.putTimelines[0]?.testingSince).to.equal(5 * MINUTE);
    expect(plan.dropTimelines).to.deep.equal([timelineKeyOf({ queue: widgets, pr: 9 })]);
    expect(plan.putRuns.map((r) => r.runId)).to.deep.equal(["r2"]);
    expect(plan.dropRuns).to.deep.equal(["r9"]);
  });

  it("keeps what an event changed after the snapshot was asked for", () => {
    const newer = timeline(2, 7);
    const touched = [
      timelineKeyOf(newer),
      timelineKeyOf({ queue: widgets, pr: 3 }), // ended since: not brought back
      timelineKeyOf({ queue: widgets, pr: 9 }), // submitted since: kept
      runKeyOf("r2"), // finished since
      runKeyOf("r9"), // started since
    ];
    const plan = planReconcile(
      local([timeline(1, 0), newer, timeline(9, 8)], [run("r9")], touched),
      snapshot,
    );
    expect(plan).to.deep.equal({ putTimelines: [], dropTimelines: [], putRuns: [], dropRuns: [] });
  });
});
