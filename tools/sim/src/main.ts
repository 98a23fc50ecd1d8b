import { formatReportTable } from "./report.js";
import { runSimulation, type SimulationReport } from "./simulate.js";
import { DEFAULT_WORKLOAD, type WorkloadSpec } from "./workload.js";

/**
 * Compares queue strategies on one generated workload.
 *   node --conditions=mainline-source --import tsx tools/sim/src/main.ts [prCount] [arrivalsPerHour] [seed]
 */
const [prCount = "300", arrivals = "20", seed = "7"] = process.argv.slice(2);
const workload: WorkloadSpec = {
  ...DEFAULT_WORKLOAD,
  prCount: Number(prCount),
  arrivalsPerHour: Number(arrivals),
  seed: Number(seed),
};

const strategies: [string, Record<string, unknown>][] = [
  ["single, concurrency 1", { concurrency: 1 }],
  ["single, concurrency 4", { concurrency: 4 }],
  ["single, c4, batch 4", { concurrency: 4, batch: true, batchingMinSize: 4 }],
  [
    "single, c4, batch 4, opt+PFD1",
    { concurrency: 4, batch: true, canOptimisticallyMerge: true, pendingFailureDepth: 1 },
  ],
  ["parallel, concurrency 4", { mode: "PARALLEL", concurrency: 4 }],
  ["parallel, c4, batch 4", { mode: "PARALLEL", concurrency: 4, batch: true }],
];

const rows: [string, SimulationReport][] = strategies.map(([name, settings]) => [
  name,
  runSimulation({ settings: { testingTimeoutMinutes: 0, ...settings }, workload }),
]);
console.log(
  `workload: ${workload.prCount} PRs, ${workload.arrivalsPerHour}/h, failure ${workload.failureProbability}, ` +
    `flake ${workload.flakeProbability}, tests ${workload.testMinutes.min}-${workload.testMinutes.max} min, seed ${workload.seed}`,
);
console.log(formatReportTable(rows));
