import { expect } from "chai";
import {
  addRunToBuckets,
  bucketList,
  failureRate,
  NO_BUCKETS,
  packBuckets,
  hourOf,
  pruneBuckets,
  pullRequestsImpacted,
  testFigures,
} from "../../../src/domain/aggregates/index.js";
import { DAY_MS, HOUR_MS } from "../../../src/domain/durations.js";
import type { BucketedRun, HourlyBuckets } from "../../../src/domain/aggregates/index.js";

const NOW = Date.UTC(2025, 2, 10, 12, 30);

function bucketsOf(runs: BucketedRun[]): HourlyBuckets {
  return runs.reduce<HourlyBuckets>((buckets, run) => addRunToBuckets(buckets, run), NO_BUCKETS);
}

describe("hourly buckets", () => {
  it("counts runs, failures and failing PRs per UTC hour", () => {
    const buckets = bucketsOf([
      { at: NOW, failed: true, pullRequests: [12] },
      { at: NOW + 5 * 60_000, failed: true, pullRequests: [12] },
      { at: NOW + 10 * 60_000, failed: false, pullRequests: [13] },
      { at: NOW - HOUR_MS, failed: false },
      { at: NOW + 20 * 60_000, failed: true, pullRequests: [9, 12] },
      { at: NOW + 30 * HOUR_MS, failed: true, pullRequests: [4] },
    ]);
    expect(bucketList(buckets)).to.deep.equal([
      { hour: hourOf(NOW) - HOUR_MS, runs: 1, failures: 0, pullRequests: [] },
      { hour: hourOf(NOW), runs: 4, failures: 3, pullRequests: [9, 12] },
      { hour: hourOf(NOW) + 30 * HOUR_MS, runs: 1, failures: 1, pullRequests: [4] },
    ]);
    // Packed as snapshots before held them, unpacked again: the same buckets.
    expect(packBuckets(bucketList(buckets))).to.deep.equal(buckets);
  });

  it("computes the 7-day and 24-hour failure rates as fractions of runs", () => {
    const buckets = bucketsOf([
      { at: NOW - 3 * DAY_MS, failed: true },
      { at: NOW - 3 * DAY_MS, failed: true },
      { at: NOW - 2 * HOUR_MS, failed: true },
      { at: NOW - HOUR_MS, failed: false },
      { at: NOW - 30 * 60_000, failed: false },
      { at: NOW - 8 * DAY_MS, failed: true },
    ]);
    expect(failureRate(buckets, NOW, 7 * DAY_MS)).to.equal(3 / 5);
    expect(failureRate(buckets, NOW, DAY_MS)).to.equal(1 / 3);
    expect(failureRate(NO_BUCKETS, NOW, DAY_MS)).to.equal(0);
  });

  it("the 24-hour window is the current hour and the 23 before it", () => {
    const buckets = bucketsOf([
      { at: hourOf(NOW) - 23 * HOUR_MS, failed: true },
      { at: hourOf(NOW) - 24 * HOUR_MS, failed: false },
    ]);
    expect(failureRate(buckets, NOW, DAY_MS)).to.equal(1);
    expect(failureRate(buckets, NOW, HOUR_MS)).to.equal(0);
  });

  it("counts distinct impacted pull requests over 7 days, only where the test failed", () => {
    const buckets = bucketsOf([
      { at: NOW - 6 * DAY_MS, failed: true, pullRequests: [1] },
      { at: NOW - 2 * DAY_MS, failed: true, pullRequests: [1] },
      { at: NOW - DAY_MS, failed: true, pullRequests: [2] },
      { at: NOW - DAY_MS, failed: false, pullRequests: [3] },
      { at: NOW - 9 * DAY_MS, failed: true, pullRequests: [4] },
      { at: NOW, failed: true },
    ]);
    expect(pullRequestsImpacted(buckets, NOW, 7 * DAY_MS)).to.equal(2);
    expect(testFigures(buckets, NOW)).to.deep.equal({
      failure_rate_last_7d: 4 / 5,
      failure_rate_last_24h: 1,
      pull_requests_impacted_last_7d: 2,
    });
  });

  it("prunes buckets no window can reach", () => {
    const buckets = bucketsOf([
      { at: NOW - 10 * DAY_MS, failed: true },
      { at: NOW - 7 * DAY_MS, failed: true },
    ]);
    expect(bucketList(pruneBuckets(buckets, NOW))).to.have.length(1);
  });
});
