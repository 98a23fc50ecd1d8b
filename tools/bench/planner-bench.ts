/**
 * One planning step over 10,000 enqueued PRs in parallel mode. Goal: median under 10 ms.
 *   node --conditions=mainline-source --import tsx tools/bench/planner-bench.ts
 */
import { performance } from "node:perf_hooks";
import {
  createPlannerState,
  createQueueSettings,
  plan,
  type PlannerState,
  type QueueEvent,
} from "@mainline/queue-coordinator/domain/index";
import { createPrng } from "@mainline/sim";

const PRS = Number(process.argv[2] ?? 10_000);
const ITERATIONS = 60;
const rng = createPrng(42);
const targets = Array.from({ length: 200 }, (_, i) => `target-${i}`);

function build(): PlannerState {
  const settings = createQueueSettings({ mode: "PARALLEL", concurrency: 8, testingTimeoutMinutes: 0 });
  // Fill the queue paused so that PRs wait, then resume: one realistic state, built through the planner.
  let state = plan(
    createPlannerState("main", settings),
    { type: "SETTINGS_UPDATED", patch: { state: "PAUSED" } },
    0,
  ).state;
  for (let n = 1; n <= PRS; n++) {
    const mine = rng.chance(0.001) ? "ALL" : [rng.pick(targets), rng.pick(targets)];
    state = plan(
      state,
      {
        type: "PR_SUBMITTED",
        pr: n,
        facts: {
          headBranch: `b${n}`,
          headSha: `s${n}`,
          title: "",
          author: "",
          baseBranch: "main",
          open: true,
        },
        impactedTargets: { sha: `s${n}`, targets: mine },
      },
      n,
    ).state;
  }
  return plan(state, { type: "SETTINGS_UPDATED", patch: { state: "RUNNING" } }, PRS + 1).state;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function measure(name: string, state: PlannerState, event: () => QueueEvent): void {
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const e = event();
    const start = performance.now();
    plan(state, e, state.now + 1000);
    samples.push(performance.now() - start);
  }
  console.log(
    `${name.padEnd(44)} median ${median(samples).toFixed(2)} ms   (min ${Math.min(...samples).toFixed(2)} ms)`,
  );
}

const started = performance.now();
const state = build();
console.log(
  `built ${Object.keys(state.prs).length} enqueued PRs in parallel mode in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
const running = Object.values(state.runs).filter((r) => r.status === "RUNNING");
console.log(`runs in flight: ${running.length}`);
measure("time passes (no change)", state, () => ({ type: "TIME_PASSED" }));
let i = 0;
measure("a test run passes (merge + next start)", state, () => ({
  type: "TEST_RUN_FINISHED",
  runId: (running[i++ % running.length] as { id: string }).id,
  outcome: "PASSED",
}));
measure("a test run fails (pending failure)", state, () => ({
  type: "TEST_RUN_FINISHED",
  runId: (running[i++ % running.length] as { id: string }).id,
  outcome: "FAILED",
}));
measure("a PR is submitted", state, () => ({
  type: "PR_SUBMITTED",
  pr: PRS + 1,
  facts: { headBranch: "x", headSha: "sx", title: "", author: "", baseBranch: "main", open: true },
  impactedTargets: { sha: "sx", targets: [rng.pick(targets)] },
}));
