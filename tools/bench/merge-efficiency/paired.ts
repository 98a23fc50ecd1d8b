// Two planners compared seed against seed: the lines `per-seed.ts` printed in each checkout, matched by workload
// and seed. Per workload (the generated loads pooled per mode): the mean change of each figure, as the mean of the
// logs of the ratios with its standard error in brackets, and the seeds at reach before and after.
//   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency/paired.ts BEFORE.jsonl AFTER.jsonl
import { readFileSync } from "node:fs";
import { pairedChange, showChange } from "./paired-change.js";

interface SeedLine {
  load: string;
  seed: number;
  p50: number;
  runs: number;
  perHour: number;
  mean: number;
  p90: number;
  atReach: boolean;
}
const FIGURES = ["p50", "runs", "perHour", "mean", "p90"] as const;

function read(file: string): Map<string, SeedLine> {
  const lines = new Map<string, SeedLine>();
  for (const text of readFileSync(file, "utf8").split("\n")) {
    if (!text.startsWith("{")) continue;
    const line = JSON.parse(text) as SeedLine;
    lines.set(`${line.load}#${line.seed}`, line);
  }
  return lines;
}

const [beforeFile, afterFile] = process.argv.slice(2);
if (beforeFile === undefined || afterFile === undefined) {
  console.error("usage: paired.ts BEFORE.jsonl AFTER.jsonl (each printed by per-seed.ts)");
  process.exit(2);
}
const before = read(beforeFile);
const after = read(afterFile);
const groups = new Map<string, [SeedLine, SeedLine][]>();
for (const [key, a] of before) {
  const b = after.get(key);
  if (b === undefined) continue;
  const group = a.load.startsWith("generated ") ? a.load.split(" ").slice(0, 2).join(" ") : a.load;
  const pairs = groups.get(group) ?? [];
  pairs.push([a, b]);
  groups.set(group, pairs);
}

const change = (pairs: [SeedLine, SeedLine][], figure: (typeof FIGURES)[number]): string =>
  showChange(
    pairedChange(
      pairs.map(([a]) => a[figure]),
      pairs.map(([, b]) => b[figure]),
    ),
  ).padStart(14);
console.log(
  `${"workload".padEnd(20)} pairs ${FIGURES.map((f) => (f === "perHour" ? "merged/h" : f).padStart(14)).join("")}   at reach`,
);
for (const [group, pairs] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
  const hits = (i: 0 | 1): number => pairs.filter((p) => p[i].atReach).length;
  console.log(
    `${group.padEnd(20)} ${String(pairs.length).padStart(5)} ${FIGURES.map((f) => change(pairs, f)).join("")}   ` +
      `${hits(0)} -> ${hits(1)}`,
  );
}
if (groups.size === 0) console.log("no workload and seed in both files");
