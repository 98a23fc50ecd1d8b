/**
 * The yardstick of `simulate --compare`: the plain speculative queue model (tools/sim plain-queue.ts)
 * over every workload of tools/bench/merge-efficiency at the workload's own settings, beside the
 * "reach" figures of its README and the planner, so a reader sees how close the model is to the
 * reach it stands for on files that have no README row.
 *   node --conditions=mainline-source --import tsx tools/bench/plain-queue-bench.ts [DIR]
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseQueueSettings } from "@mainline/queue-coordinator/api/command-parser";
import { parseWorkloadFile, runPlainQueue, runSimulation, summarize } from "@mainline/sim";
import { readReachTable } from "./merge-efficiency/reach-table.js";

const dir = resolve(process.argv[2] ?? join(import.meta.dirname, "merge-efficiency"));
const reach = readReachTable(readFileSync(join(dir, "README.md"), "utf8"));

const lines = [
  "| workload | p50 min (reach / plain model / planner) | CI runs | merged per h |",
  "|---|---|---|---|",
];
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()) {
  const { workload, settings } = parseWorkloadFile(readFileSync(join(dir, file), "utf8"), file);
  const own = parseQueueSettings(settings);
  const plain = summarize(
    workload.name,
    settings,
    runPlainQueue(workload, {
      concurrency: own.concurrency,
      batchSize: own.batch ? own.batchingMinSize : 1,
      batchingMaxWaitTimeMinutes: own.batchingMaxWaitTimeMinutes,
    }),
  );
  const planner = summarize(workload.name, settings, runSimulation({ settings, workload }));
  const r = reach.get(workload.name)?.reach;
  const cell = (fromReach: number | undefined, model: number, mine: number, digits = 0): string =>
    `${fromReach?.toFixed(digits) ?? "-"} / ${model.toFixed(digits)} / ${mine.toFixed(digits)}`;
  lines.push(
    `| ${workload.name} | ${cell(r?.p50, plain.timeToMergeMinutes.p50, planner.timeToMergeMinutes.p50)} | ` +
      `${cell(r?.runs, plain.runs.total, planner.runs.total)} | ` +
      `${cell(r?.perHour, plain.mergedPerHour, planner.mergedPerHour, 1)} |`,
  );
}
console.log(lines.join("\n"));
