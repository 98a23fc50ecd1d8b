import { expect } from "chai";
import { estimateMerge, median } from "../../src/domain/merge-estimate.js";

const minute = 60_000;
const base = { testing: false, stateSince: 0, concurrency: 2, batchSize: 1, now: 1_000 * minute };

describe("estimated merge time", () => {
  it("is unknown until a run duration is known", () => {
    expect(estimateMerge({ ...base, position: 1, recentRunDurationsMs: [] }).estimatedMergeAt).to.equal(
      undefined,
    );
  });

  it("uses the median recent run: one slow outlier does not move it", () => {
    expect(median([10, 11, 12, 13, 600])).to.equal(12);
    expect(median([10, 20])).to.equal(15);
  });

  it("counts the rounds of runs ahead: concurrency times batch size PRs per round", () => {
    const at = (position: number, batchSize = 1) =>
      (estimateMerge({ ...base, batchSize, position, recentRunDurationsMs: [10 * minute] })
        .estimatedMergeAt! -
        base.now) /
      minute;
    expect([1, 2, 3, 4, 5].map((p) => at(p))).to.deep.equal([10, 10, 20, 20, 30]);
    expect([1, 8, 9, 10].map((p) => at(p, 4))).to.deep.equal([10, 10, 20, 20]);
  });

  it("gives a PR under test what is left of its run, never a time in the past", () => {
    const testing = { ...base, testing: true, position: 1, recentRunDurationsMs: [10 * minute] };
    expect(estimateMerge({ ...testing, stateSince: base.now - 4 * minute }).estimatedMergeAt).to.equal(
      base.now + 6 * minute,
    );
    expect(estimateMerge({ ...testing, stateSince: base.now - 15 * minute }).estimatedMergeAt).to.equal(
      base.now,
    );
  });
});
