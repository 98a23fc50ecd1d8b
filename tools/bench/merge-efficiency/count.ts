// Where a workload's CI runs go (issue 27): main runs by batch size and outcome, cancellations by reason and cause,
// probes, bisection runs and witnesses, averaged over ten flake seeds (the file's and 1001-1009), in the file's
// mode and in one lane.
//   node --conditions=mainline-source --import tsx tools/bench/merge-efficiency/count.ts FILE [--set mode=SINGLE]
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseWorkloadFile, runSimulation } from "@mainline/sim";
import { settingOverrides } from "./setting-overrides.js";

const file = process.argv[2] as string;
const { workload, settings } = parseWorkloadFile(readFileSync(file, "utf8"), basename(file, ".json"));
const overrides = settingOverrides(process.argv.slice(3));
const tally = new Map<string, number>();
const add = (key: string, by = 1): void => void tally.set(key, (tally.get(key) ?? 0) + by);
for (const seed of [workload.seed, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009]) {
  const kinds = new Map<string, string>();
  const r = runSimulation({
    settings: { ...settings, ...overrides },
    workload: { ...workload, seed },
    observe: ({ event, step, before }) => {
      if (event.type === "TEST_RUN_FINISHED") {
        const kind = kinds.get(event.runId);
        if (kind !== undefined && before.runs[event.runId]?.status === "RUNNING") {
          add(`${kind} finished ${event.outcome}`);
          // A main run kept as a failed batch's witness (witness.ts) ends as part of its search.
          if (before.runs[event.runId]?.witness === true) add(`witness finished ${event.outcome}`);
        }
      }
      for (const dec of step.decisions) {
        if (dec.type === "START_TEST_RUN") {
          const probe = dec.kind === "bisection" && step.state.runs[dec.runId]?.comboKey === null;
          const kind = dec.kind === "main" ? "main" : probe ? "probe" : "bisect";
          kinds.set(dec.runId, kind);
          add(`${kind} started`);
          if (kind === "main") add(`main size ${dec.prs.length}`);
          if (kind === "main") add("main base PRs", dec.dependentPrs.length);
        } else if (dec.type === "CANCEL_TEST_RUN") {
          // Keyed by what ended to cause it: a main run failing, a probe failing, a run passing (a retry in place)...
          const cause =
            event.type === "TEST_RUN_FINISHED"
              ? `${kinds.get(event.runId) ?? "run"} ${event.outcome}`
              : event.type;
          add(`${kinds.get(dec.runId)} cancelled ${dec.reason} (on ${cause})`);
        }
      }
    },
  });
  add("p50 sum", r.timeToMergeMinutes.p50);
  add("merged/h sum", r.mergedPerHour);
}
for (const [k, v] of [...tally].sort()) console.log(`${k.padEnd(70)} ${(v / 10).toFixed(1)}`);
