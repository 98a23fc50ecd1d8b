import { expect } from "chai";
import {
  LANES_BAR,
  coupling,
  geomean,
  missedBar,
  ratios,
} from "../../bench/merge-efficiency/lanes-ratios.js";

// The figures lanes-table.ts prints for issue 27 item 1 (PARALLEL against one lane and against reach).
describe("lanes table ratios (issue 27 item 1)", () => {
  it("divides each figure by the same figure of the other mode", () => {
    const r = ratios({ p50: 150, runs: 200, perHour: 22 }, { p50: 200, runs: 200, perHour: 20 });
    expect(r.p50).to.equal(0.75);
    expect(r.runs).to.equal(1);
    expect(r.perHour).to.be.closeTo(1.1, 1e-12);
  });

  it("names each figure that misses the bar: p50 and runs at most, merged per hour at least", () => {
    expect(missedBar({ p50: 0.8, runs: 1, perHour: 1.1 }, LANES_BAR.reach)).to.deep.equal([]);
    expect(missedBar({ p50: 0.82, runs: 1.02, perHour: 1.03 }, LANES_BAR.reach)).to.deep.equal([
      "p50",
      "runs",
      "merged/h",
    ]);
    expect(missedBar({ p50: 1.03, runs: 0.99, perHour: 1.01 }, LANES_BAR.oneLane)).to.deep.equal(["p50"]);
  });

  it("judges a ratio as printed, at two decimals (1.004 shows 1.00 and meets a bar of 1)", () => {
    expect(missedBar({ p50: 1.004, runs: 0.996, perHour: 0.996 }, LANES_BAR.oneLane)).to.deep.equal([]);
    expect(missedBar({ p50: 1.006, runs: 1, perHour: 1 }, LANES_BAR.oneLane)).to.deep.equal(["p50"]);
  });

  it("averages seeds geometrically, so one slow seed does not outweigh a fast one", () => {
    const g = geomean([
      { p50: 100, runs: 200, perHour: 10 },
      { p50: 400, runs: 200, perHour: 40 },
    ]);
    expect(g.p50).to.be.closeTo(200, 1e-9);
    expect(g.runs).to.be.closeTo(200, 1e-9);
    expect(g.perHour).to.be.closeTo(20, 1e-9);
  });

  it("measures coupling as the share of the line ahead a run is built on, one lane being 1", () => {
    expect(coupling(12, 12)).to.equal(1);
    expect(coupling(3, 12)).to.equal(0.25);
    expect(coupling(0, 0)).to.equal(undefined);
    // A base can hold a batch merging ahead that is no longer counted in line: never above one lane.
    expect(coupling(14, 12)).to.equal(1);
  });
});
