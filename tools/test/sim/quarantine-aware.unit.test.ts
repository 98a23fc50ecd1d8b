import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { parseWorkloadFile, runSimulation, workloadFromSpec, DEFAULT_WORKLOAD } from "@mainline/sim";
import { flakeSeeds } from "../../bench/merge-efficiency/flake-seeds.js";

const FLAKY_1 = join(import.meta.dirname, "../../bench/merge-efficiency/flaky-1.json");

describe("simulator: a queue that reads its runs' tests (issue 26)", () => {
  const { workload, settings } = parseWorkloadFile(readFileSync(FLAKY_1, "utf8"), "flaky-1");

  it("counts runs failed only by quarantined tests as passed, and fails fewer good PRs by flakes", () => {
    // Over the ten flake seeds of the bench's method: one draw moves p50 by a third either way.
    const total = { aware: { p50: 0, runs: 0, goodFailed: 0 }, blind: { p50: 0, runs: 0, goodFailed: 0 } };
    for (const seed of flakeSeeds(workload.seed, undefined)) {
      const aware = runSimulation({ settings, workload: { ...workload, seed } });
      const blind = runSimulation({ settings, workload: { ...workload, seed, quarantinedShare: 0 } });
      expect(aware.runsPassedByQuarantine).to.be.greaterThan(0);
      expect(blind.runsPassedByQuarantine).to.equal(0);
      expect(aware.badMerged).to.equal(0);
      expect(aware.stuck).to.equal(0);
      for (const [side, r] of [
        ["aware", aware],
        ["blind", blind],
      ] as const) {
        total[side].p50 += r.timeToMergeMinutes.p50;
        total[side].runs += r.mainRuns + r.bisectionRuns;
        total[side].goodFailed += r.goodFailedByFlakes;
      }
    }
    expect(total.aware.goodFailed).to.be.at.most(total.blind.goodFailed);
    // A lone PR whose run failed none of the tests its batch failed runs again (bisection-evidence.ts): both sides fail
    // almost no good PR by a flake (16 and 4 over these seeds before that rule, blind and aware).
    expect(total.blind.goodFailed).to.be.at.most(2);
    expect(total.aware.runs).to.be.below(total.blind.runs);
    expect(total.aware.p50).to.be.below(total.blind.p50);
  });

  it("with the queue's settings off, no failure counts as passed and none is retried for its tests", () => {
    // A quarantined test is a flaky one: with quarantine not honoured, the flake retry would see it.
    const off = { ...settings, ignoreQuarantinedTests: false, retryKnownFlakyTests: false };
    const on = runSimulation({ settings, workload });
    const ignored = runSimulation({ settings: off, workload });
    expect(on.runsPassedByQuarantine).to.be.greaterThan(0);
    expect(ignored.runsPassedByQuarantine).to.equal(0);
    expect(ignored.flakyRetries).to.equal(0);
    // Every quarantined flake now fails its run (and may fail a good PR), as with a queue that knows no quarantine.
    expect(ignored.mainRuns + ignored.bisectionRuns).to.be.above(on.mainRuns + on.bisectionRuns);
    expect(ignored.badMerged).to.equal(0);
  });

  it("a half whose batch's failed tests the other half failed goes back untested, and merges; no bad PR does", () => {
    const bad = new Set(workload.prs.filter((p) => p.bad).map((p) => p.number));
    const released = new Set<number>();
    const r = runSimulation({
      settings,
      workload,
      observe: ({ step }) => {
        for (const n of step.notices) {
          if (n.type !== "PR_STATE_CHANGED" || n.reason !== "FAILURE_EXPLAINED_ELSEWHERE") continue;
          released.add(n.pr);
          // Its history says which PRs explained the failure.
          expect(n.detail).to.match(
            /^#\d+(, #\d+)* failed every test the batch failed, on a run of (its|their) own/,
          );
        }
      },
    });
    expect(released.size).to.be.greaterThan(0);
    expect([...released].filter((n) => bad.has(n))).to.deep.equal([]);
    for (const n of released) expect(r.finalStates[n], `#${n}`).to.equal("MERGED");
  });

  it("every flaky failure quarantined is as if no flake had happened", () => {
    const all = runSimulation({ settings, workload: { ...workload, quarantinedShare: 1 } });
    const none = runSimulation({ settings, workload: { ...workload, flakeRate: 0 } });
    expect(all.mergeOrder).to.deep.equal(none.mergeOrder);
    expect(all.mainRuns + all.bisectionRuns).to.equal(none.mainRuns + none.bisectionRuns);
    expect(all.goodFailedByFlakes).to.equal(0);
  });

  it("a workload file's quarantinedShare must be a share", () => {
    const text = JSON.stringify({ quarantinedShare: 1.5, prs: [] });
    expect(() => parseWorkloadFile(text, "bad")).to.throw(/quarantinedShare/);
    const generated = workloadFromSpec({ ...DEFAULT_WORKLOAD, prCount: 5 });
    expect(generated.quarantinedShare ?? 0).to.equal(0);
  });
});
