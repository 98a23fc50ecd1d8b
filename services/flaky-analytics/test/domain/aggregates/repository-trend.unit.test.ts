import { expect } from "chai";
import {
  addToTrend,
  NO_TREND,
  trendCounts,
  type RepositoryTrend,
} from "../../../src/domain/aggregates/index.js";
import { DAY_MS, HOUR_MS } from "../../../src/domain/durations.js";

const NOW = Date.UTC(2025, 2, 10, 12, 30);
const TODAY = Date.UTC(2025, 2, 10);

describe("a repository's trend", () => {
  it("sums runs and failures per hour, also for uploads that arrive late, and counts them per bucket", () => {
    let trend: RepositoryTrend = NO_TREND;
    trend = addToTrend(trend, NOW, { runs: 10, failures: 1 }, NOW);
    trend = addToTrend(trend, NOW + 10 * 60_000, { runs: 5, failures: 2 }, NOW);
    trend = addToTrend(trend, NOW - 3 * HOUR_MS, { runs: 4, failures: 0 }, NOW);
    trend = addToTrend(trend, NOW - DAY_MS, { runs: 7, failures: 7 }, NOW);
    const hourly = trendCounts(trend, TODAY, HOUR_MS, 24);
    expect(hourly.runs[12]).to.equal(15);
    expect(hourly.failures[12]).to.equal(3);
    expect(hourly.runs[9]).to.equal(4);
    expect(hourly.runs.reduce((a, b) => a + b)).to.equal(19);
    expect(trendCounts(trend, TODAY - DAY_MS, DAY_MS, 2)).to.deep.equal({ runs: [7, 19], failures: [7, 3] });
  });

  it("keeps 90 days and an hour, and a new array each time (readers keep the old one)", () => {
    const old = addToTrend(NO_TREND, NOW - 91 * DAY_MS, { runs: 1, failures: 0 }, NOW - 91 * DAY_MS);
    const kept = addToTrend(old, NOW - 89 * DAY_MS, { runs: 2, failures: 0 }, NOW - 89 * DAY_MS);
    const next = addToTrend(kept, NOW, { runs: 3, failures: 1 }, NOW);
    expect(old).to.have.length(3);
    expect(trendCounts(next, TODAY - 95 * DAY_MS, DAY_MS, 96).runs.filter((r) => r > 0)).to.deep.equal([
      2, 3,
    ]);
    expect(addToTrend(next, NOW - 95 * DAY_MS, { runs: 9, failures: 9 }, NOW)).to.equal(next);
    expect(addToTrend(next, NOW, { runs: 0, failures: 0 }, NOW)).to.equal(next);
  });
});
