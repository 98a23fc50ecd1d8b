// Where a workload's merged PRs spend their time (issue 27, item 2): the wait before their first main run, the
// main runs each needed, and the PR-minutes spent waiting in line by how many main runs were in flight meanwhile
// (all `concurrency` busy: the wait is for a slot; fewer: for a batch to fill or a failure ahead to settle), and the
// time from a search sending a PR back into the line to its merge.
// Over the ten flake seeds (or --seeds=FIRST-LAST), in the file's mode or with --set.
//   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency/waits.ts FILE [--seeds=A-B] [--set ...]
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseWorkloadFile, runSimulation } from "@mainline/sim";
import { flakeSeedsOrExit } from "./flake-seeds.js";
import { settingOverrides } from "./setting-overrides.js";

const MINUTE = 60_000;
const args = process.argv.slice(2);
const file = args[0] as string;
const { workload, settings } = parseWorkloadFile(readFileSync(file, "utf8"), basename(file, ".json"));
const seeds = flakeSeedsOrExit(
  workload.seed,
  args.find((a) => a.startsWith("--seeds="))?.slice("--seeds=".length),
);
const overrides = settingOverrides(args);

interface Merged {
  total: number;
  toFirstRun: number;
  mainRuns: number;
  /** Minutes from when a search sent it back into the line (its group passed, or the failure was someone else's). */
  backInLine?: number;
}
const merged: Merged[] = [];
// A search's verdicts that put a PR back into the line to be tested again in a main run (ejection.ts requeueGoodGroup).
const SENT_BACK_BY_A_SEARCH = new Set<string>([
  "BISECTION_PASSED",
  "CLEARED_BY_EARLIER_BISECTION",
  "FAILURE_EXPLAINED_ELSEWHERE",
]);
const waitingByRunsInFlight = new Map<number, number>();
/** Per seed, minutes from the last arrival to the last PR's end: what decides merged per hour on a finite file. */
const tails: number[] = [];
const lastArrival = Math.max(...workload.prs.map((pr) => pr.arrivesAt));

for (const seed of seeds) {
  const arrivedAt = new Map(workload.prs.map((pr) => [pr.number, pr.arrivesAt]));
  const firstRunAt = new Map<number, number>();
  const mainRuns = new Map<number, number>();
  const sentBackAt = new Map<number, number>();
  let lastEnd = 0;
  let last = 0;
  let waiting = 0;
  let inFlight = 0;
  runSimulation({
    settings: { ...settings, ...overrides },
    workload: { ...workload, seed },
    observe: ({ at, step }) => {
      waitingByRunsInFlight.set(
        inFlight,
        (waitingByRunsInFlight.get(inFlight) ?? 0) + (waiting * (at - last)) / MINUTE,
      );
      last = at;
      for (const decision of step.decisions) {
        if (decision.type !== "START_TEST_RUN" || decision.kind !== "main") continue;
        for (const n of decision.prs) {
          if (!firstRunAt.has(n)) firstRunAt.set(n, at);
          mainRuns.set(n, (mainRuns.get(n) ?? 0) + 1);
        }
      }
      for (const notice of step.notices) {
        if (notice.type !== "PR_STATE_CHANGED") continue;
        if (notice.to === "PENDING" && SENT_BACK_BY_A_SEARCH.has(notice.reason))
          sentBackAt.set(notice.pr, at);
        if (notice.to === "MERGED" || notice.to === "FAILED") lastEnd = at;
        if (notice.to !== "MERGED") continue;
        const arrived = arrivedAt.get(notice.pr) ?? at;
        const sentBack = sentBackAt.get(notice.pr);
        merged.push({
          total: (at - arrived) / MINUTE,
          toFirstRun: ((firstRunAt.get(notice.pr) ?? at) - arrived) / MINUTE,
          mainRuns: mainRuns.get(notice.pr) ?? 0,
          ...(sentBack === undefined ? {} : { backInLine: (at - sentBack) / MINUTE }),
        });
      }
      waiting = Object.values(step.state.prs).filter((pr) => pr.state === "PENDING").length;
      inFlight = Object.values(step.state.runs).filter(
        (r) => r.kind === "main" && r.status === "RUNNING",
      ).length;
    },
  });
  tails.push((lastEnd - lastArrival) / MINUTE);
}

const at = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(p * (sorted.length - 1))] ?? 0;
};
const row = (name: string, values: number[]): string =>
  `${name.padEnd(34)}${[0.1, 0.25, 0.5, 0.75, 0.9].map((p) => at(values, p).toFixed(1).padStart(8)).join("")}`;
console.log(
  `${seeds.length} seeds, ${merged.length} merges${"".padEnd(8)}     p10     p25     p50     p75     p90`,
);
console.log(
  row(
    "time to merge (min)",
    merged.map((m) => m.total),
  ),
);
console.log(
  row(
    "wait for the first main run (min)",
    merged.map((m) => m.toFirstRun),
  ),
);
console.log(
  row(
    "main runs it was in",
    merged.map((m) => m.mainRuns),
  ),
);
const once = merged.filter((m) => m.mainRuns === 1);
console.log(
  row(
    `merged by its first run (${((100 * once.length) / merged.length).toFixed(0)}%)`,
    once.map((m) => m.total),
  ),
);
// A search on the target alone cannot merge what it clears once the line behind has started without it: the PRs
// wait for a main run of their own, a whole run after the search's (docs/planner-history.md, twenty-second pass).
const sentBack = merged.filter((m) => m.backInLine !== undefined);
const sum = (values: number[]): number => values.reduce((total, v) => total + v, 0);
const backInLine = sum(sentBack.map((m) => m.backInLine as number));
console.log(
  row(
    `back in line after a search (${((100 * sentBack.length) / merged.length).toFixed(0)}%)`,
    sentBack.map((m) => m.backInLine as number),
  ),
);
console.log(
  `  from then to merge: ${(backInLine / seeds.length).toFixed(0)} PR-minutes per seed, ` +
    `${((100 * backInLine) / sum(merged.map((m) => m.total))).toFixed(1)}% of all PR-minutes to merge`,
);
console.log(row("last arrival to the last PR's end", tails));
console.log("PR-minutes waiting in line (PENDING), per seed, by main runs in flight:");
for (const [runs, minutes] of [...waitingByRunsInFlight].sort((a, b) => a[0] - b[0]))
  if (minutes > 0)
    console.log(`  ${String(runs).padStart(2)}  ${(minutes / seeds.length).toFixed(0).padStart(7)}`);
