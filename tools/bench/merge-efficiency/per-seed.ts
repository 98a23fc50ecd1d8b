// One JSON line per workload and flake seed (and per generated load), for comparing two planners seed against seed:
// run it in each checkout, then `paired.ts BEFORE.jsonl AFTER.jsonl`. A change moves which runs the flakes hit, so
// one workload swings ~10% on any change; the pairs cancel that out (docs/planner-history.md, tenth pass).
//   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency/per-seed.ts [--seeds=FIRST-LAST]
//     [--generated=FIRST-LAST] [--only=PREFIX] [--set NAME=VALUE ...] > FILE.jsonl
// --seeds: flake seeds per bench file (default the ten of flake-seeds.ts); --generated: workload seeds of the
// generated loads (6 per seed per mode, as generated-loads.ts; default none); --only: bench files by name prefix.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseWorkloadFile, runSimulation, type SimulationReport } from "@mainline/sim";
import { flakeSeedsOrExit } from "./flake-seeds.js";
import { generatedLoads } from "./generated-load-grid.js";
import { atReach, readReachTable, type ReachRow } from "./reach-table.js";
import { settingOverrides } from "./setting-overrides.js";

const args = process.argv.slice(2);
const option = (name: string): string | undefined =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const overrides = settingOverrides(args);
const only = option("only") ?? "";
const seedOption = option("seeds");
const generated = option("generated");
// A bad range stops here, before any simulation.
flakeSeedsOrExit(0, seedOption);
const generatedSeeds = generated === undefined ? [] : flakeSeedsOrExit(0, generated, "--generated");
const dir = import.meta.dirname;
const reach = readReachTable(readFileSync(join(dir, "README.md"), "utf8"));

function line(load: string, seed: number, r: SimulationReport, row?: ReachRow): string {
  return JSON.stringify({
    load,
    seed,
    p50: r.timeToMergeMinutes.p50,
    runs: r.mainRuns + r.bisectionRuns,
    perHour: r.mergedPerHour,
    mean: r.timeToMergeMinutes.mean,
    p90: r.timeToMergeMinutes.p90,
    atReach: atReach(r, row),
    goodFailed: r.goodFailed,
    badMerged: r.badMerged,
    stuck: r.stuck,
  });
}

for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".json") && f.startsWith(only))
  .sort()) {
  const name = file.replace(/\.json$/, "");
  const { workload, settings } = parseWorkloadFile(readFileSync(join(dir, file), "utf8"), name);
  for (const seed of flakeSeedsOrExit(workload.seed, seedOption)) {
    const r = runSimulation({ settings: { ...settings, ...overrides }, workload: { ...workload, seed } });
    console.log(line(name, seed, r, reach.get(name)));
  }
}
for (const load of generatedLoads(generatedSeeds, overrides)) {
  console.log(line(load.label, load.seed, runSimulation(load.options)));
}
