// Issue 27 item 1: PARALLEL mode (lanes) must never cost more than one lane, and should beat "reach". For every
// PARALLEL workload here: geometric means over ten flake seeds (the file's and 1001-1009) of p50 / CI runs / merged
// per hour in PARALLEL and with the same PRs in one lane (`mode=SINGLE`), their ratios, the ratios to the README's
// reach, and how coupled the lanes are (the share of the line ahead that a main run is built on; 1 is one lane).
// Then the 24 generated loads per mode (generated-loads.ts), PARALLEL against one lane.
//   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency/lanes-table.ts [DIR] [--no-generated]
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEFAULT_WORKLOAD, parseWorkloadFile, runSimulation, type SimulationReport } from "@mainline/sim";
import type { PlannerState } from "@mainline/queue-coordinator/domain/index";
import { LANES_BAR, coupling, geomean, missedBar, ratios, type Figures } from "./lanes-ratios.js";
import { readReachTable } from "./reach-table.js";

const args = process.argv.slice(2);
const dir = resolve(args.find((a) => !a.startsWith("--")) ?? import.meta.dirname);
const reach = readReachTable(readFileSync(join(dir, "README.md"), "utf8"));

const figuresOf = (r: SimulationReport): Figures => ({
  p50: r.timeToMergeMinutes.p50,
  runs: r.mainRuns + r.bisectionRuns,
  perHour: r.mergedPerHour,
});
const show = (f: Figures): string =>
  `${f.p50.toFixed(0).padStart(4)} / ${f.runs.toFixed(0).padStart(3)} / ${f.perHour.toFixed(1).padStart(4)}`;
const showRatio = (f: Figures, bar: Figures): string => {
  const missed = missedBar(f, bar);
  return `${f.p50.toFixed(2)} / ${f.runs.toFixed(2)} / ${f.perHour.toFixed(2)} ${missed.length === 0 ? "ok" : "SHORT " + missed.join(",")}`;
};

/** PRs of every batch in line (not aside) ahead of `batchId`'s first member. */
function prsAhead(state: PlannerState, batchId: string): number {
  const first = state.batches[batchId]?.prs[0];
  let count = 0;
  for (const n of state.order) {
    if (n === first) break;
    const id = state.prs[String(n)]?.batchId;
    if (id != null && id !== batchId && state.batches[id]?.aside !== true) count++;
  }
  return count;
}

function simulate(
  settings: Record<string, unknown>,
  workload: Parameters<typeof runSimulation>[0]["workload"],
) {
  const shares: number[] = [];
  const report = runSimulation({
    settings,
    workload,
    observe: ({ step }) => {
      for (const dec of step.decisions) {
        if (dec.type !== "START_TEST_RUN" || dec.kind !== "main") continue;
        const share = coupling(dec.dependentPrs.length, prsAhead(step.state, dec.batchId));
        if (share !== undefined) shares.push(share);
      }
    },
  });
  const mean = shares.length === 0 ? 1 : shares.reduce((a, b) => a + b, 0) / shares.length;
  return { figures: figuresOf(report), coupling: mean };
}

console.log(
  "workload     PARALLEL (10 seeds)   one lane (10 seeds)   PARALLEL/one lane (bar <=1, <=1, >=1)   " +
    "PARALLEL/reach (bar <=0.8, <=1, >=1.1)   coupling",
);
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()) {
  const name = file.replace(/\.json$/, "");
  const { workload, settings } = parseWorkloadFile(readFileSync(join(dir, file), "utf8"), name);
  if (settings.mode !== "PARALLEL") continue;
  const seeds = [workload.seed, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009];
  const lanes = seeds.map((seed) => simulate(settings, { ...workload, seed }));
  const single = seeds.map((seed) => simulate({ ...settings, mode: "SINGLE" }, { ...workload, seed }));
  const p = geomean(lanes.map((r) => r.figures));
  const s = geomean(single.map((r) => r.figures));
  const row = reach.get(name);
  const vsReach = row === undefined ? "(no reach row)" : showRatio(ratios(p, row.reach), LANES_BAR.reach);
  const share = lanes.reduce((a, r) => a + r.coupling, 0) / lanes.length;
  console.log(
    `${name.padEnd(12)} ${show(p)}    ${show(s)}    ${showRatio(ratios(p, s), LANES_BAR.oneLane).padEnd(38)}  ` +
      `${vsReach.padEnd(39)}  ${share.toFixed(2)}`,
  );
}

if (!args.includes("--no-generated")) {
  const byMode = new Map<string, Figures[]>();
  for (const mode of ["PARALLEL", "SINGLE"]) {
    const all: Figures[] = [];
    for (const arrivalsPerHour of [12, 24, 40])
      for (const failureProbability of [0.03, 0.08])
        for (const seed of [1, 2, 3, 4]) {
          const settings = {
            mode,
            concurrency: 4,
            batch: true,
            batchingMinSize: 4,
            batchingMaxWaitTimeMinutes: 1,
          };
          const workload = { ...DEFAULT_WORKLOAD, seed, prCount: 250, arrivalsPerHour, failureProbability };
          all.push(figuresOf(runSimulation({ settings, workload })));
        }
    byMode.set(mode, all);
  }
  const p = geomean(byMode.get("PARALLEL") ?? []);
  const s = geomean(byMode.get("SINGLE") ?? []);
  console.log(
    `\ngenerated loads (24 per mode, geometric means): PARALLEL ${show(p)}   one lane ${show(s)}   ` +
      `PARALLEL/one lane ${showRatio(ratios(p, s), LANES_BAR.oneLane)}`,
  );
}
