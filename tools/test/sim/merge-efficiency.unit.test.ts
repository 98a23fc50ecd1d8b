import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import {
  DEFAULT_WORKLOAD,
  parseWorkloadFile,
  runSimulation,
  summarize,
  type WorkloadSpec,
} from "@mainline/sim";
import { flakeSeeds } from "../../bench/merge-efficiency/flake-seeds.js";
import { readReachTable } from "../../bench/merge-efficiency/reach-table.js";

const DIR = join(import.meta.dirname, "../../bench/merge-efficiency");
/** Workloads the planner meets "reach" on today (every one since the twentieth pass). */
const MEETS_REACH = new Set([
  "failing-1",
  "failing-2",
  "flaky-1",
  "heavy-1",
  "light-1",
  "loaded-1",
  "loaded-2",
  "mixed-1",
  "parallel-1",
  "parallel-2",
  "parallel-3",
]);

describe("merge efficiency (issue 16)", () => {
  it("a batch never closes below its target size while no test slot can take it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 5, max: 60 }),
        (concurrency, size, wait, seed, arrivalsPerHour) => {
          // One lane, no PR that must test alone: a batch has no reason to close early but a free slot.
          const workload: WorkloadSpec = {
            ...DEFAULT_WORKLOAD,
            seed,
            prCount: 30,
            arrivalsPerHour,
            urgentProbability: 0,
            noBatchProbability: 0,
            cancelProbability: 0,
          };
          const settings = {
            concurrency,
            batch: true,
            batchingMinSize: size,
            batchingMaxWaitTimeMinutes: wait,
          };
          runSimulation({
            settings,
            workload,
            observe: ({ before, step }) => {
              for (const [id, was] of Object.entries(before.batches)) {
                const now = step.state.batches[id];
                if (was.status !== "FORMING" || now === undefined || now.status === "FORMING") continue;
                if (now.prs.length >= size) continue;
                expect(now.status, `batch ${id} of ${now.prs.length} closed`).to.equal("TESTING");
              }
            },
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  // The repository's copies of bench/merge-efficiency (CI has no ../shared). A simulation is
  // deterministic, so these are behaviour checks, not timings.
  const reach = readReachTable(readFileSync(join(DIR, "README.md"), "utf8"));
  const files = readdirSync(DIR).filter((f) => f.endsWith(".json"));

  it("has a row of figures in the README for every workload, and every workload that meets reach", () => {
    const names = files.map((f) => f.replace(/\.json$/, "")).sort();
    expect([...reach.keys()].sort(), "workloads of the README's table").to.deep.equal(names);
    for (const name of MEETS_REACH) expect(names, "workloads that meet reach").to.include(name);
    for (const [name, row] of reach) {
      const figures = [row.reach.p50, row.reach.runs, row.reach.perHour];
      expect(figures.every(Number.isFinite), `${name}: reach row ${JSON.stringify(row.reach)}`).to.equal(
        true,
      );
    }
  });

  it("seeds.ts judges over the file's seed and 1001-1009, or over the range --seeds names", () => {
    expect(flakeSeeds(7, undefined)).to.deep.equal([7, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009]);
    expect(flakeSeeds(7, "2001-2030")).to.have.length(30);
    expect(flakeSeeds(7, "2001-2030").slice(0, 2)).to.deep.equal([2001, 2002]);
    expect(flakeSeeds(7, "5-5")).to.deep.equal([5]);
    for (const bad of ["", "30", "30-1", "1-x", "-1-3", "1-2000", "1.5-3"])
      expect(() => flakeSeeds(7, bad), `--seeds=${bad}`).to.throw(/--seeds: .* FIRST-LAST/);
  });

  for (const file of files) {
    const name = file.replace(/\.json$/, "");
    it(`${name}: no bad PR merges, none is stuck${MEETS_REACH.has(name) ? ", and it does at least as well as reach" : ""}`, () => {
      const { workload, settings } = parseWorkloadFile(readFileSync(join(DIR, file), "utf8"), name);
      const s = summarize(name, settings, runSimulation({ settings, workload }));
      expect(s.badMerged).to.equal(0);
      expect(s.stuck).to.equal(0);
      expect(s.merged + s.failed + s.cancelled).to.equal(s.prs);
      if (!MEETS_REACH.has(name)) return;
      const r = reach.get(name);
      if (r === undefined) expect.fail(`the README's figures table has no row for ${name}`);
      expect(s.timeToMergeMinutes.p50, "p50 minutes").to.be.at.most(r.reach.p50);
      expect(s.runs.total, "CI runs").to.be.at.most(r.reach.runs);
      expect(s.mergedPerHour, "merged per hour").to.be.at.least(r.reach.perHour);
    });
  }
});
