import { COMPARE_LIMITS } from "./compare-grid.js";
import type { Comparison, Gain } from "./compare.js";

const COLUMNS = ["merged/h", "p50 min", "p90 min", "CI runs", "runs/PR"];

/** `simulate --compare` for a person: what was searched, the table, the rule, the verdict, the plain queue. */
export function describeComparison(c: Comparison): string[] {
  const width = Math.max(8, ...c.rows.map((r) => r.label.length));
  const head = ["settings".padEnd(width), ...COLUMNS.map((h) => h.padStart(8)), " keeps up"].join(" ");
  const lines = c.rows.map(({ label, keepsUp, behind, summary: s }) =>
    [
      label.padEnd(width),
      s.mergedPerHour.toFixed(2).padStart(8),
      s.timeToMergeMinutes.p50.toFixed(0).padStart(8),
      s.timeToMergeMinutes.p90.toFixed(0).padStart(8),
      String(s.runs.total).padStart(8),
      s.runsPerMergedPr.toFixed(2).padStart(8),
      keepsUp ? " yes" : ` no (${behind.join("; ")})`,
    ].join(" "),
  );
  const { rule, searched, plain } = c;
  const ps = plain.summary;
  const plainLine =
    `plain queue (reach) at the workload's settings (concurrency ${plain.settings.concurrency}, ` +
    `${plain.settings.batchSize === 1 ? "no batching" : `batches of ${plain.settings.batchSize}`}): ` +
    `merged/h ${ps.mergedPerHour.toFixed(2)}, p50 ${ps.timeToMergeMinutes.p50.toFixed(0)} min, CI runs ${ps.runs.total}`;
  const b = plain.beatenBy;
  const verdict =
    c.cheapest === null || b === null
      ? [
          "None of these settings keeps up.",
          `Search further: --concurrency and --batch-sizes take up to ${COMPARE_LIMITS.listLength} values each ` +
            `(at most ${COMPARE_LIMITS.concurrency[1]}), or allow a longer wait with --max-p50.`,
        ]
      : [
          `Cheapest that keeps up (fewest CI runs, then fewest slots): ${c.cheapest}.`,
          `Against the plain queue: p50 ${gainText(b.p50Minutes, "min", "faster")}, CI runs ` +
            `${gainText(b.ciRuns, "", "fewer")}, merged/h ${gainText(b.mergedPerHour, "", "higher")}.`,
        ];
  return [
    `workload ${c.workload}`,
    `searched ${searched.points} settings: mode ${searched.modes.join("/")} x concurrency ` +
      `${searched.concurrency.join("/")} x batch size ${searched.batchSizes.join("/")} (1: no batching)` +
      (searched.note === null ? "" : `; ${searched.note}`),
    `keeping up: merged/h at least ${rule.minMergedPerHour.toFixed(2)} (${rule.share * 100}% of the ` +
      `${rule.arrivalsPerHour.toFixed(2)} good PRs arriving per hour), p50 at most ${rule.maxP50Minutes} min, ` +
      "none stuck, no bad PR merged",
    ...(c.flakeSeeds.length > 1
      ? [
          `judged over ${c.flakeSeeds.length} draws of the flakes (seeds ${c.flakeSeeds[0]}-${c.flakeSeeds.at(-1)}): ` +
            "figures are their means, and a setting keeps up only if it kept up in every draw",
        ]
      : []),
    head,
    ...lines,
    plainLine,
    ...verdict,
  ];
}

function gainText(g: Gain, unit: string, better: string): string {
  const figure = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(unit === "min" ? 0 : 2));
  const times = g.times === null ? "" : `, ${g.times.toFixed(2)}x ${g.times >= 1 ? better : "worse"}`;
  return `${figure(g.plain)} -> ${figure(g.chosen)}${unit === "" ? "" : ` ${unit}`}${times}`;
}
