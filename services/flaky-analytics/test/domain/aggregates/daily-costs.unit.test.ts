import { expect } from "chai";
import {
  addRunToDays,
  costBetween,
  dayList,
  DAYS_KEPT,
  NO_DAYS,
  type CostedRun,
  type DailyCosts,
} from "../../../src/domain/aggregates/index.js";
import { DAY_MS, HOUR_MS } from "../../../src/domain/durations.js";

const NOW = Date.UTC(2025, 2, 10, 12, 30);
const TODAY = Date.UTC(2025, 2, 10);

const run = (at: number, over: Partial<CostedRun> = {}): CostedRun => ({
  at,
  failed: false,
  failedQueueRun: false,
  retryMs: 0,
  pullRequests: [],
  ...over,
});

function daysOf(runs: CostedRun[], now = NOW): DailyCosts {
  return runs.reduce<DailyCosts>((days, r) => addRunToDays(days, r, now), NO_DAYS);
}

describe("a test's daily costs", () => {
  it("counts runs, failures, failed queue runs, retry time and impacted PRs per UTC day", () => {
    const days = daysOf([
      run(NOW, { failed: true, failedQueueRun: true, pullRequests: [7, 9] }),
      run(NOW + HOUR_MS, { failed: true, pullRequests: [9, 12], retryMs: 2_400 }),
      run(NOW - DAY_MS),
      run(NOW + 2 * HOUR_MS, { retryMs: 1_600 }),
      // A pass names its PR, but impacts nothing.
      run(NOW - DAY_MS + HOUR_MS, { pullRequests: [3] }),
    ]);
    expect(dayList(days)).to.deep.equal([
      { day: TODAY - DAY_MS, runs: 2, failures: 0, failedQueueRuns: 0, retrySeconds: 0, pullRequests: [] },
      { day: TODAY, runs: 3, failures: 2, failedQueueRuns: 1, retrySeconds: 4, pullRequests: [7, 9, 12] },
    ]);
  });

  it("sums a window of days and counts each impacted PR once across days", () => {
    const days = daysOf([
      run(NOW - 3 * DAY_MS, { failed: true, failedQueueRun: true, pullRequests: [1] }),
      run(NOW - 2 * DAY_MS, { failed: true, failedQueueRun: true, pullRequests: [1, 2] }),
      run(NOW, { failed: true, pullRequests: [3] }),
    ]);
    expect(costBetween(days, TODAY - 2 * DAY_MS, TODAY + DAY_MS)).to.deep.equal({
      runs: 2,
      failures: 2,
      failedQueueRuns: 1,
      pullRequestsImpacted: 3,
      retrySeconds: 0,
    });
    expect(costBetween(days, TODAY - 3 * DAY_MS, TODAY).pullRequestsImpacted).to.equal(2);
    expect(costBetween(days, TODAY + DAY_MS, TODAY + 2 * DAY_MS).runs).to.equal(0);
  });

  it("keeps 91 days: older days go as new ones come, and a run older than that changes nothing", () => {
    const days = daysOf([run(NOW - 100 * DAY_MS), run(NOW - 90 * DAY_MS), run(NOW)]);
    expect(dayList(days).map((d) => (TODAY - d.day) / DAY_MS)).to.deep.equal([90, 0]);
    const later = addRunToDays(days, run(NOW + DAY_MS), NOW + DAY_MS);
    expect(dayList(later).map((d) => (TODAY - d.day) / DAY_MS)).to.deep.equal([0, -1]);
    expect(DAYS_KEPT).to.equal(91);
  });

  it("takes late runs in their day, and never changes the array it was given", () => {
    const days = daysOf([run(NOW), run(NOW - 5 * DAY_MS)]);
    const before = [...days];
    const next = addRunToDays(days, run(NOW - 2 * DAY_MS, { failed: true }), NOW);
    expect(days).to.deep.equal(before);
    expect(dayList(next).map((d) => [(TODAY - d.day) / DAY_MS, d.failures])).to.deep.equal([
      [5, 0],
      [2, 1],
      [0, 0],
    ]);
  });

  it("saturates counts instead of spilling into the next field", () => {
    let days: DailyCosts = NO_DAYS;
    for (let i = 0; i < 70_000; i++) days = addRunToDays(days, run(NOW, { failed: true }), NOW);
    expect(dayList(days)).to.have.length(1);
    expect(dayList(days)[0]).to.include({ day: TODAY, runs: 65_535, failures: 65_535 });
  });
});
