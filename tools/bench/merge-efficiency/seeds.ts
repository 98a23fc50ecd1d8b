// Robustness of the planner beyond one flake draw (issue 27, item 3): every bench workload over ten flake seeds,
// PARALLEL workloads also in one lane (`mode=SINGLE`), and the 24 generated loads per mode.
//   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency/seeds.ts [DIR] [--no-generated]
//     [--only=PREFIX] [--seeds=FIRST-LAST] [--set NAME=VALUE ...]
// Per workload: geometric means over ten flake seeds (the file's and 1001-1009) of p50 / CI runs / merged per
// hour, and in how many seeds all three are at the README's "reach" (p50 and runs at most, merged per hour at
// least; no bad merge, none stuck).
// A PARALLEL workload adds its ratios to reach (issue 27 asks p50 <= 0.8x, runs <= 1x, merged/h >= 1.1x) and to
// the same PRs in one lane.
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseWorkloadFile, runSimulation, type SimulationReport } from "@mainline/sim";
import { flakeSeedsOrExit } from "./flake-seeds.js";
import { settingOverrides } from "./setting-overrides.js";
import { geomean, type Figures } from "./lanes-ratios.js";
import { atReach, readReachTable } from "./reach-table.js";

const args = process.argv.slice(2);
const dir = resolve(
  args.find((a, i) => !a.startsWith("--") && args[i - 1] !== "--set") ?? import.meta.dirname,
);
const overrides = settingOverrides(args);
// --only=PREFIX: just the workloads whose name starts with it (e.g. --only=parallel).
const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length) ?? "";
const reach = readReachTable(readFileSync(join(dir, "README.md"), "utf8"));
// --seeds=FIRST-LAST: another range of flake seeds than the ten (see flake-seeds.ts).
const seedOption = args.find((a) => a.startsWith("--seeds="))?.slice("--seeds=".length);
const seedsOf = (own: number): number[] => flakeSeedsOrExit(own, seedOption);
seedsOf(0); // a bad --seeds stops here, before any simulation

const figuresOf = (r: SimulationReport): Figures => ({
  p50: r.timeToMergeMinutes.p50,
  runs: r.mainRuns + r.bisectionRuns,
  perHour: r.mergedPerHour,
});

const show = (f: Figures): string =>
  `${f.p50.toFixed(0).padStart(4)} / ${f.runs.toFixed(0).padStart(3)} / ${f.perHour.toFixed(1).padStart(4)}`;

console.log(
  `workload     seed-file p50/runs/mh   ${seedsOf(0).length} seeds (geomean)   at reach   ` +
    `ratio to reach p50/runs/mh   one lane (${seedsOf(0).length} seeds)   PARALLEL/one lane`,
);
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".json") && f.startsWith(only))
  .sort()) {
  const name = file.replace(/\.json$/, "");
  const parsed = parseWorkloadFile(readFileSync(join(dir, file), "utf8"), name);
  const { workload } = parsed;
  const settings = { ...parsed.settings, ...overrides };
  const row = reach.get(name);
  const own = figuresOf(runSimulation({ settings, workload }));
  const seeds = seedsOf(workload.seed);
  const runs = seeds.map((seed) => runSimulation({ settings, workload: { ...workload, seed } }));
  const mean = geomean(runs.map(figuresOf));
  const hits = runs.filter((r) => atReach(r, row)).length;
  let cells = `${name.padEnd(12)} ${show(own)}   ${show(mean)}   ${String(hits).padStart(2)}/${seeds.length}`;
  if (settings.mode === "PARALLEL" && row !== undefined) {
    const single = { ...settings, mode: "SINGLE" };
    const lane = geomean(
      seeds.map((seed) => figuresOf(runSimulation({ settings: single, workload: { ...workload, seed } }))),
    );
    cells +=
      `      ${(mean.p50 / row.reach.p50).toFixed(2)} / ${(mean.runs / row.reach.runs).toFixed(2)} / ` +
      `${(mean.perHour / row.reach.perHour).toFixed(2)}     ${show(lane)}     ` +
      `${(mean.p50 / lane.p50).toFixed(2)} / ${(mean.runs / lane.runs).toFixed(2)} / ${(mean.perHour / lane.perHour).toFixed(2)}`;
  }
  console.log(cells);
}

if (!args.includes("--no-generated")) {
  console.log("\ngenerated loads (24 per mode, geometric means; see generated-loads.ts)");
  await import("./generated-loads.js");
}
