// The simulator's entry point: workloads, the virtual-time world, the simulation and its reports.
export * from "./compare.js";
export * from "./compare-grid.js";
export * from "./compare-report.js";
export * from "./plain-queue.js";
export * from "./prng.js";
export * from "./report.js";
export * from "./run-tests.js";
export * from "./simulate.js";
export * from "./summary.js";
export * from "./workload-file.js";
export * from "./workload.js";
export * from "./world.js";
