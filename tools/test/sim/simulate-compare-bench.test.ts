import { join } from "node:path";
import { expect } from "chai";
import type { Comparison } from "@mainline/sim";
import { mainline } from "./run-mainline.js";

// Whole bench workloads under the default grid: seconds of planner time, so make test's tier, not make check's.
const BENCH = join(import.meta.dirname, "../../bench/merge-efficiency");

async function compare(...args: string[]): Promise<Comparison> {
  const ran = await mainline("simulate", "--compare", "--json", ...args);
  expect(ran.code, ran.stderr).to.equal(0);
  return JSON.parse(ran.stdout) as Comparison;
}

describe("mainline simulate --compare on the bench workloads", () => {
  it("loaded-1: searches the default grid and names settings that keep up and beat the plain queue", async () => {
    const c = await compare("--workload", join(BENCH, "loaded-1.json"));
    expect(c.searched).to.deep.include({
      concurrency: [1, 2, 4, 8, 16],
      batchSizes: [1, 2, 4, 8],
      modes: ["SINGLE"],
      points: 20,
    });
    // The file's own settings (4 slots, batches of 4) fall short of 95% of the arrival rate.
    const own = c.rows.find((r) => r.label === "SINGLE concurrency 4, batches of 4");
    expect(own?.keepsUp).to.equal(false);
    const chosen = c.rows.find((r) => r.label === c.cheapest);
    expect(chosen?.keepsUp).to.equal(true);
    expect(chosen?.summary.mergedPerHour).to.be.at.least(c.rule.minMergedPerHour);
    expect(chosen?.summary.timeToMergeMinutes.p50).to.be.at.most(c.rule.maxP50Minutes);
    expect(c.plain.settings).to.deep.equal({ concurrency: 4, batchSize: 4, batchingMaxWaitTimeMinutes: 1 });
    const gain = c.plain.beatenBy;
    expect(gain?.p50Minutes.times).to.be.greaterThan(1);
    expect(gain?.mergedPerHour.times).to.be.greaterThan(1);
    expect(gain?.ciRuns.chosen).to.equal(chosen?.summary.runs.total);
  });

  it("parallel-1: PRs name impacted targets, so PARALLEL is searched beside SINGLE", async () => {
    const c = await compare(
      "--workload",
      join(BENCH, "parallel-1.json"),
      "--concurrency",
      "4,8",
      "--batch-sizes",
      "4,8",
    );
    expect(c.searched).to.deep.include({ modes: ["SINGLE", "PARALLEL"], points: 8, note: null });
    expect(new Set(c.rows.map((r) => r.summary.settings.mode))).to.deep.equal(
      new Set(["SINGLE", "PARALLEL"]),
    );
    for (const r of c.rows) expect(r.summary).to.include({ badMerged: 0, stuck: 0 });
  });
});
