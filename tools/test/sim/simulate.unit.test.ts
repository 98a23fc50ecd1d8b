import { expect } from "chai";
import {
  CALM_WORLD,
  DEFAULT_WORKLOAD,
  formatReportTable,
  generateWorkload,
  runSimulation,
  type WorkloadSpec,
} from "@mainline/sim";

const workload: WorkloadSpec = { ...DEFAULT_WORKLOAD, prCount: 60, arrivalsPerHour: 12, seed: 3 };

describe("virtual-time simulator", () => {
  it("replays exactly for a seed", () => {
    const a = runSimulation({ settings: { concurrency: 2 }, workload });
    const b = runSimulation({ settings: { concurrency: 2 }, workload });
    expect(a).to.deep.equal(b);
    expect(generateWorkload(workload)).to.deep.equal(generateWorkload(workload));
    // Not equal because empty or fixed: another seed gives other PRs.
    expect(generateWorkload(workload)).to.have.length(60);
    expect(generateWorkload({ ...workload, seed: 4 })).to.not.deep.equal(generateWorkload(workload));
    const world = {
      ...CALM_WORLD,
      seed: 5,
      headPushProbability: 0.3,
      targetMoves: 2,
      coordinatorRestarts: 2,
    };
    const moved = runSimulation({ settings: { concurrency: 2 }, workload, world });
    expect(moved).to.deep.equal(runSimulation({ settings: { concurrency: 2 }, workload, world }));
    expect(moved.mainRuns).to.be.greaterThan(a.mainRuns);
  });

  it("ends every PR and reports throughput, CI runs per merge and time-to-merge percentiles", () => {
    const r = runSimulation({ settings: { concurrency: 2, testingTimeoutMinutes: 0 }, workload });
    expect(r.stuck).to.equal(0);
    expect(r.merged + r.failed + r.cancelled).to.equal(r.prs);
    expect(r.runsPerMergedPr).to.be.at.least(1);
    expect(r.timeToMergeMinutes.p50).to.be.at.most(r.timeToMergeMinutes.p90);
    expect(r.timeToMergeMinutes.p90).to.be.at.most(r.timeToMergeMinutes.p99);
    expect(formatReportTable([["c2", r]])).to.match(/^strategy/);
  });

  it("parallel lanes merge a workload of disjoint PRs faster than one lane", () => {
    const disjoint: WorkloadSpec = {
      ...workload,
      failureProbability: 0.2,
      flakeProbability: 0,
      arrivalsPerHour: 30,
      targets: { count: 8, perPr: 1, allProbability: 0, noneProbability: 0 },
    };
    const single = runSimulation({ settings: { concurrency: 2 }, workload: disjoint });
    const parallel = runSimulation({ settings: { mode: "PARALLEL", concurrency: 2 }, workload: disjoint });
    expect(parallel.merged).to.equal(single.merged);
    expect(parallel.timeToMergeMinutes.p50).to.be.lessThan(single.timeToMergeMinutes.p50);
  });

  it("bisection result reuse never costs more CI runs than running every step", () => {
    const batched: WorkloadSpec = { ...workload, failureProbability: 0.15, flakeProbability: 0 };
    const settings = { batch: true, batchingMinSize: 4, concurrency: 2 };
    const reuse = runSimulation({ settings, workload: batched });
    const none = runSimulation({ settings, workload: batched, planner: { reuseBisectionResults: false } });
    expect(reuse.bisectionRuns).to.be.at.most(none.bisectionRuns);
    expect(reuse.finalStates).to.deep.equal(none.finalStates);
  });

  it("bisectionMode ISOLATED ends every PR as STACKED does when nothing flakes, by other runs", () => {
    const batched: WorkloadSpec = { ...workload, failureProbability: 0.15, flakeProbability: 0 };
    const settings = { batch: true, batchingMinSize: 4, concurrency: 2 };
    const stacked = runSimulation({ settings: { ...settings, bisectionMode: "STACKED" }, workload: batched });
    const independent = runSimulation({
      settings: { ...settings, bisectionMode: "ISOLATED" },
      workload: batched,
    });
    expect(independent.stuck).to.equal(0);
    expect(independent.finalStates).to.deep.equal(stacked.finalStates);
    // The setting is read: the two searches test different combinations.
    expect(independent.bisectionRuns).to.not.equal(stacked.bisectionRuns);
  });
});
