// Geometric means of p50 / CI runs / merged per hour over 24 generated loads per mode: a check that a planner
// change helps beyond the six bench files (one workload swings ~10% on any small change).
//   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency/generated-loads.ts [--seeds=FIRST-LAST]
//     [--set NAME=VALUE ...]
// --seeds: the workload seeds (default 1-4, the figures the README and docs quote). 24 loads could not tell
// whether a rule fails more good PRs: the simulator draws flakes from one sequence, so any change moves which
// runs they hit (tenth pass, docs/planner-history.md); 6 loads per seed, so 1-40 gives 240 per mode.
import { runSimulation } from "@mainline/sim";
import { flakeSeedsOrExit } from "./flake-seeds.js";
import { generatedLoads } from "./generated-load-grid.js";
import { settingOverrides } from "./setting-overrides.js";

// seeds.ts imports this file for its last table and has a --seeds of its own (flake seeds, e.g. 2001-2030): the
// option is read only when this file is the one run, so seeds.ts keeps its 24 loads.
const run = process.argv[1]?.replace(/\\/g, "/").endsWith("merge-efficiency/generated-loads.ts") ?? false;
const seedOption = run
  ? process.argv
      .slice(2)
      .find((a) => a.startsWith("--seeds="))
      ?.slice("--seeds=".length)
  : undefined;
const seeds = seedOption === undefined ? [1, 2, 3, 4] : flakeSeedsOrExit(0, seedOption);

// seeds.ts passes its own --set on: the same argv.
const overrides = settingOverrides(process.argv);
const loads = [...generatedLoads(seeds, overrides)];
for (const mode of ["SINGLE", "PARALLEL"]) {
  let logP50 = 0;
  let logRuns = 0;
  let logPerHour = 0;
  let count = 0;
  let goodFailed = 0;
  let badMerged = 0;
  let stuck = 0;
  for (const load of loads) {
    if (load.mode !== mode) continue;
    const r = runSimulation(load.options);
    logP50 += Math.log(r.timeToMergeMinutes.p50);
    logRuns += Math.log(r.mainRuns + r.bisectionRuns);
    logPerHour += Math.log(r.mergedPerHour);
    count++;
    goodFailed += r.goodFailed;
    badMerged += r.badMerged;
    stuck += r.stuck;
  }
  const mean = (sum: number, digits: number): string => Math.exp(sum / count).toFixed(digits);
  console.log(
    `${mode.padEnd(8)} p50 ${mean(logP50, 0)}  runs ${mean(logRuns, 0)}  merged/h ${mean(logPerHour, 2)}  ` +
      `good PRs failed ${goodFailed}  bad merged ${badMerged}  stuck ${stuck}  (${count} loads)`,
  );
}
