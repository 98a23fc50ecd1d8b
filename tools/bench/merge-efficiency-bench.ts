/**
 * Merge efficiency (issue 16): the planner in virtual time over every workload of
 * tools/bench/merge-efficiency (copies of the shared bench files), beside the oracle and the
 * "reach" figures of its README, with pass/fail against reach (p50 and CI runs at most, merged
 * per hour at least; no bad PR merged, none stuck).
 *   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency-bench.ts [DIR]
 * The pass/fail gate is ../shared/bench/merge-efficiency/check.mjs; this prints the table and
 * leaves `make bench` running the other benchmarks.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseWorkloadFile, runSimulation, type SimulationSummary, summarize } from "@mainline/sim";
import { readReachTable, type ReachRow } from "./merge-efficiency/reach-table.js";

const dir = resolve(process.argv[2] ?? join(import.meta.dirname, "merge-efficiency"));
const reach = readReachTable(readFileSync(join(dir, "README.md"), "utf8"));

function shortOf(s: SimulationSummary, r: ReachRow | undefined): string[] {
  const why: string[] = [];
  if (s.badMerged !== 0) why.push(`badMerged ${s.badMerged}`);
  if (s.stuck !== 0) why.push(`stuck ${s.stuck}`);
  if (r === undefined) return why;
  if (s.timeToMergeMinutes.p50 > r.reach.p50) why.push(`p50 > ${r.reach.p50}`);
  if (s.runs.total > r.reach.runs) why.push(`runs > ${r.reach.runs}`);
  if (s.mergedPerHour < r.reach.perHour) why.push(`merged/h < ${r.reach.perHour}`);
  return why;
}

const cell = (oracle: number, reachFigure: number, mine: number, digits = 0): string =>
  `${oracle.toFixed(digits)} / ${reachFigure.toFixed(digits)} / **${mine.toFixed(digits)}**`;

const lines = [
  "| workload | p50 min (oracle / reach / Mainline) | CI runs | merged per h | good PRs failed | sim s | vs reach |",
  "|---|---|---|---|---|---|---|",
];
let short = 0;
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()) {
  const name = file.replace(/\.json$/, "");
  const { workload, settings } = parseWorkloadFile(readFileSync(join(dir, file), "utf8"), name);
  const started = performance.now();
  const s = summarize(name, settings, runSimulation({ settings, workload }));
  const seconds = (performance.now() - started) / 1000;
  const r = reach.get(name);
  const why = shortOf(s, r);
  if (why.length > 0) short++;
  lines.push(
    [
      "",
      name,
      r ? cell(r.oracle.p50, r.reach.p50, s.timeToMergeMinutes.p50) : String(s.timeToMergeMinutes.p50),
      r ? cell(r.oracle.runs, r.reach.runs, s.runs.total) : String(s.runs.total),
      r ? cell(r.oracle.perHour, r.reach.perHour, s.mergedPerHour, 1) : s.mergedPerHour.toFixed(1),
      String(s.goodFailed),
      seconds.toFixed(1),
      why.length === 0 ? "ok" : `SHORT: ${why.join("; ")}`,
      "",
    ]
      .join(" | ")
      .trim(),
  );
}
console.log(lines.join("\n"));
console.log(`${lines.length - 2 - short} of ${lines.length - 2} workloads at least as good as reach`);
