import { expect } from "chai";
import {
  byCost,
  checkFlakeDraws,
  checkGrid,
  compareSettings,
  CompareOptionError,
  fallsBehind,
  keepUpRule,
  pickCheapest,
  summarize,
  runSimulation,
  type Candidate,
  type SimulatedPr,
  type Workload,
} from "@mainline/sim";

const MINUTE = 60_000;

/** `count` good PRs, one every `gap` minutes, each testing for `testMinutes`; no flakes. */
function steady(count: number, gap: number, testMinutes = 30): Workload {
  const prs: SimulatedPr[] = Array.from({ length: count }, (_, i) => ({
    number: i + 1,
    arrivesAt: i * gap * MINUTE,
    bad: false,
    testMinutes,
    priority: "medium",
    noBatch: false,
    targets: [],
    cancelAt: null,
  }));
  return { name: "steady", seed: 1, flakeRate: 0, mergeMinutes: 1, prs };
}

const point = (concurrency: number, batchSize: number, runs: number, mode = "SINGLE"): Candidate => ({
  concurrency,
  batchSize,
  runs,
  mode: mode as Candidate["mode"],
});

describe("simulate --compare: the search", () => {
  it("the cheapest is the fewest CI runs, then the fewest slots, then the larger batch, then one lane", () => {
    expect(pickCheapest([point(8, 4, 90), point(2, 4, 120), point(4, 8, 90)])).to.deep.include({
      concurrency: 4,
      runs: 90,
    });
    expect(pickCheapest([point(4, 4, 90), point(4, 8, 90)])?.batchSize).to.equal(8);
    expect(pickCheapest([point(4, 4, 90, "PARALLEL"), point(4, 4, 90)])?.mode).to.equal("SINGLE");
    expect(pickCheapest([])).to.equal(null);
    expect(byCost(point(1, 1, 10), point(1, 1, 10))).to.equal(0);
  });

  it("keeping up needs the rate, the p50 bound, nothing stuck and no bad merge, and says which failed", () => {
    const workload = steady(12, 10);
    const ran = summarize("s", {}, runSimulation({ settings: { concurrency: 4 }, workload }));
    // A short load's rate is its tail's; the rate rule is checked on set figures below.
    const summary = { ...ran, mergedPerHour: 6 };
    const rule = keepUpRule(6, 60);
    expect(fallsBehind(summary, rule)).to.deep.equal([]);
    expect(fallsBehind(summary, keepUpRule(6, 20))).to.deep.equal([
      `p50 ${summary.timeToMergeMinutes.p50.toFixed(0)} > 20 min`,
    ]);
    expect(fallsBehind({ ...summary, mergedPerHour: 5.69 }, rule)).to.deep.equal(["merged/h 5.69 < 5.70"]);
    // The bar is judged as printed: 5.695 reads 5.70, the bar itself.
    expect(fallsBehind({ ...summary, mergedPerHour: 5.695 }, rule)).to.deep.equal([]);
    expect(fallsBehind({ ...summary, stuck: 2, badMerged: 1 }, rule)).to.deep.equal([
      "2 PRs stuck",
      "1 bad PRs merged",
    ]);
  });

  it("on a steady load, one slot without batching falls behind and the named setting is the cheapest that keeps up", () => {
    // Six PRs an hour, 30-minute runs: one slot tests two an hour alone.
    const c = compareSettings(
      steady(60, 10),
      { batchingMaxWaitTimeMinutes: 1 },
      {
        grid: { concurrency: [1, 2, 4], batchSizes: [1, 4] },
      },
    );
    expect(c.searched).to.deep.include({ modes: ["SINGLE"], points: 6 });
    expect(c.searched.note).to.match(/PARALLEL not searched/);
    expect(c.rule.maxP50Minutes).to.equal(120);
    const alone = c.rows.find((r) => r.concurrency === 1 && r.batchSize === 1);
    expect(alone?.keepsUp).to.equal(false);
    expect(alone?.behind.join()).to.match(/^merged\/h .* < /);
    const fit = c.rows.filter((r) => r.keepsUp);
    const named = fit.find((r) => r.label === c.cheapest);
    expect(named, "the cheapest is one of the rows that keep up").to.not.equal(undefined);
    for (const r of fit) {
      expect(r.summary.runs.total).to.be.at.least(named?.summary.runs.total ?? 0);
      if (r.summary.runs.total === named?.summary.runs.total)
        expect(r.concurrency).to.be.at.least(named.concurrency);
    }
    // Batching four at a time costs about a quarter of the runs of testing each PR alone.
    expect(named?.batchSize).to.equal(4);
  });

  it("says by how much the chosen settings beat the plain queue at the workload's own settings", () => {
    const c = compareSettings(
      steady(60, 10),
      { concurrency: 1 },
      { grid: { concurrency: [1, 4], batchSizes: [1, 4] } },
    );
    expect(c.plain.settings).to.deep.equal({ concurrency: 1, batchSize: 1, batchingMaxWaitTimeMinutes: 5 });
    // The plain queue at one slot alone merges two of six an hour: its p50 grows with the queue.
    const gain = c.plain.beatenBy;
    expect(gain).to.not.equal(null);
    expect(gain?.p50Minutes.plain).to.equal(c.plain.summary.timeToMergeMinutes.p50);
    expect(gain?.p50Minutes.times).to.be.greaterThan(3);
    expect(gain?.mergedPerHour.times).to.be.greaterThan(1);
    expect(gain?.ciRuns.plain).to.equal(60);
  });

  it("nothing keeps up: no cheapest and no gain", () => {
    const c = compareSettings(steady(30, 1, 60), {}, { grid: { concurrency: [1], batchSizes: [1, 2] } });
    expect(c.cheapest).to.equal(null);
    expect(c.plain.beatenBy).to.equal(null);
    expect(c.rows.every((r) => !r.keepsUp)).to.equal(true);
  });

  it("searches PARALLEL when PRs name impacted targets, and only the modes asked for", () => {
    const targeted = steady(8, 10);
    targeted.prs.forEach((p, i) => (p.targets = [`t${i % 2}`]));
    const both = compareSettings(targeted, {}, { grid: { concurrency: [2], batchSizes: [1] } });
    expect(both.rows.map((r) => r.mode)).to.deep.equal(["SINGLE", "PARALLEL"]);
    expect(both.searched.note).to.equal(null);
    const one = compareSettings(
      targeted,
      {},
      { grid: { concurrency: [2], batchSizes: [1], modes: ["PARALLEL"] } },
    );
    expect(one.rows.map((r) => r.label)).to.deep.equal(["PARALLEL concurrency 2, no batching"]);
  });

  it("over several flake draws, a row is the draws' mean and keeps up only if it kept up in every draw", () => {
    // Flaky enough that the draws differ: one run in five fails for no reason.
    const workload = { ...steady(40, 6), flakeRate: 0.2, seed: 7 };
    const search = { grid: { concurrency: [1, 2, 4], batchSizes: [1, 4] } };
    const base = { batchingMaxWaitTimeMinutes: 1 };
    const over = compareSettings(workload, base, { ...search, flakeDraws: 3 });
    const single = [7, 8, 9].map((seed) => compareSettings({ ...workload, seed }, base, search));
    expect(over.flakeSeeds).to.deep.equal([7, 8, 9]);
    expect(single[0]?.flakeSeeds).to.deep.equal([7]);
    const mean = (figures: number[]): number =>
      Number((figures.reduce((a, b) => a + b, 0) / figures.length).toFixed(1));
    let differed = false;
    over.rows.forEach((row, i) => {
      const draws = single.map((c) => c.rows[i]!);
      const runs = draws.map((r) => r.summary.runs.total);
      differed ||= new Set(runs).size > 1;
      expect(row.summary.runs.total, row.label).to.equal(mean(runs));
      expect(row.summary.timeToMergeMinutes.p50, row.label).to.equal(
        mean(draws.map((r) => r.summary.timeToMergeMinutes.p50)),
      );
      expect(row.keptUpIn, row.label).to.equal(draws.filter((r) => r.keepsUp).length);
      expect(row.keepsUp, row.label).to.equal(draws.every((r) => r.keepsUp));
      if (!row.keepsUp && row.behind.length === 1 && row.behind[0]?.startsWith("kept up in"))
        expect(row.behind[0]).to.equal(`kept up in ${row.keptUpIn} of 3 flake draws`);
    });
    expect(differed, "the flakes moved some figure between draws").to.equal(true);
    expect(over.plain.summary.runs.total).to.equal(mean(single.map((c) => c.plain.summary.runs.total)));
  });

  it("refuses a number of flake draws outside 1..10, and counts them in the simulated PRs", () => {
    for (const bad of [0, 11, 2.5, Number.NaN]) {
      expect(() => checkFlakeDraws(bad), String(bad))
        .to.throw(CompareOptionError, "must be a whole number in 1..10")
        .with.property("field", "flakeDraws");
    }
    expect(checkFlakeDraws(10)).to.equal(10);
    const grid = { concurrency: [1, 2], batchSizes: [1, 4], modes: ["SINGLE" as const] };
    expect(checkGrid(grid, 1000, 10)).to.deep.equal(grid);
    expect(() => checkGrid(grid, 1001, 10)).to.throw(
      CompareOptionError,
      "4 settings x 1001 PRs x 10 flake draws = 40040 simulated PRs; at most 40000",
    );
  });

  const refused: [string, Parameters<typeof checkGrid>[0], number, string, RegExp][] = [
    [
      "a concurrency of 0",
      { concurrency: [0], batchSizes: [1], modes: ["SINGLE"] },
      10,
      "concurrency",
      /0: each must be an integer in 1\.\.64/,
    ],
    [
      "a fractional batch size",
      { concurrency: [1], batchSizes: [2.5], modes: ["SINGLE"] },
      10,
      "batchSizes",
      /2\.5: each must be an integer in 1\.\.64/,
    ],
    [
      "an unknown mode",
      { concurrency: [1], batchSizes: [1], modes: ["FAST" as "SINGLE"] },
      10,
      "modes",
      /FAST: each must be one of SINGLE, PARALLEL/,
    ],
    [
      "an empty list",
      { concurrency: [], batchSizes: [1], modes: ["SINGLE"] },
      10,
      "concurrency",
      /must list 1 to 8 values/,
    ],
    [
      "nine values",
      { concurrency: [1, 2, 3, 4, 5, 6, 7, 8, 9], batchSizes: [1], modes: ["SINGLE"] },
      10,
      "concurrency",
      /must list 1 to 8 values/,
    ],
    [
      "a repeated value",
      { concurrency: [2, 2], batchSizes: [1], modes: ["SINGLE"] },
      10,
      "concurrency",
      /must not repeat/,
    ],
    [
      "too many settings",
      { concurrency: [1, 2, 3, 4, 5, 6, 7, 8], batchSizes: [1, 2, 3, 4, 5], modes: ["SINGLE", "PARALLEL"] },
      10,
      "grid",
      /80 settings; at most 64/,
    ],
    [
      "too much to simulate",
      { concurrency: [1, 2, 4, 8], batchSizes: [1, 4], modes: ["SINGLE"] },
      5001,
      "grid",
      /8 settings x 5001 PRs = 40008 simulated PRs; at most 40000/,
    ],
  ];
  for (const [what, grid, prs, field, rule] of refused) {
    it(`refuses ${what}, naming the field`, () => {
      let error: unknown;
      try {
        checkGrid(grid, prs);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(CompareOptionError);
      expect((error as CompareOptionError).field).to.equal(field);
      expect((error as CompareOptionError).rule).to.match(rule);
    });
  }
});
