import { expect } from "chai";
import { pairedChange, showChange } from "../../bench/merge-efficiency/paired-change.js";

// How paired.ts reads two planners' per-seed figures (docs/planner-history.md quotes it as "-3.6% (0.8)").
describe("paired change between two planners, seed against seed", () => {
  it("is the mean of the logs of the ratios, so a gain and a loss of the same factor cancel", () => {
    const c = pairedChange([100, 100], [110, 100 / 1.1]);
    expect(c.mean).to.be.closeTo(0, 1e-12);
    expect(c.pairs).to.equal(2);
  });

  it("is not swayed by one seed's large move the way a ratio of means is", () => {
    // Nine seeds 2% better, one long seed 15% worse: the ratio of the sums says worse, the paired change better.
    const before = [100, 100, 100, 100, 100, 100, 100, 100, 100, 1000];
    const after = [98, 98, 98, 98, 98, 98, 98, 98, 98, 1150];
    expect(after.reduce((s, x) => s + x, 0) / before.reduce((s, x) => s + x, 0)).to.be.above(1);
    const c = pairedChange(before, after);
    expect(c.mean).to.be.below(0);
    expect(c.mean).to.be.closeTo((9 * Math.log(0.98) + Math.log(1.15)) / 10, 1e-12);
  });

  it("gives the standard error of that mean, zero when every seed moved alike", () => {
    expect(pairedChange([10, 20, 40], [11, 22, 44]).error).to.be.closeTo(0, 1e-12);
    const c = pairedChange([100, 100, 100, 100], [90, 110, 90, 110]);
    const logs = [Math.log(0.9), Math.log(1.1), Math.log(0.9), Math.log(1.1)];
    const mean = logs.reduce((s, x) => s + x, 0) / 4;
    const sd = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / 3);
    expect(c.error).to.be.closeTo(sd / 2, 1e-12);
  });

  it("prints as a signed percentage with the standard error in brackets", () => {
    expect(showChange({ mean: -0.036, error: 0.008 })).to.equal("-3.6% (0.8)");
    expect(showChange({ mean: 0.011, error: 0.002 })).to.equal("+1.1% (0.2)");
  });

  it("refuses lists that do not pair up, and keeps a figure of zero finite", () => {
    expect(() => pairedChange([1, 2], [1])).to.throw(/pair up/);
    expect(Number.isFinite(pairedChange([0], [5]).mean)).to.equal(true);
  });
});
