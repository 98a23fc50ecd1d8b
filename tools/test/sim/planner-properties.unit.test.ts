import { expect } from "chai";
import fc from "fast-check";
import type { PlannerState, PrState } from "@mainline/queue-coordinator/domain/index";
import {
  DEFAULT_WORKLOAD,
  runSimulation,
  type SimulatedPr,
  type StepObservation,
  type WorkloadSpec,
} from "@mainline/sim";
import {
  dependsOn,
  PROPERTY_TIMEOUT_MS,
  RUNS,
  settingsArb,
  workloadArb,
  worldArb,
  type Settings,
} from "./planner-arbitraries.js";

/**
 * Checks every MERGE decision: the run it comes from passed, contains every PR merged, lands
 * nothing it did not contain, contains every PR still queued ahead in the same lane (but a failed
 * batch being resolved aside is out of the line), and contains
 * every PR of its lane that landed on the target after the run started (the target never moved
 * under a run that merges).
 */
function checkMerges(mode: string) {
  // Each PR that landed, with the queue order just before: which PRs it was ahead of.
  const landed: { pr: number; at: number; order: readonly number[] }[] = [];
  return ({ step, prs, at, before }: StepObservation): void => {
    for (const notice of step.notices) {
      if (notice.type === "PR_STATE_CHANGED" && notice.to === "MERGED") {
        landed.push({ pr: notice.pr, at, order: before.order });
      }
    }
    for (const decision of step.decisions) {
      if (decision.type !== "MERGE") continue;
      const run = step.state.runs[decision.runId];
      expect(run?.status, `run ${decision.runId} behind merge ${decision.mergeId}`).to.equal("PASSED");
      const combo = new Set([...(run?.base ?? []), ...(run?.prs ?? [])]);
      for (const n of decision.prs) expect(combo.has(n), `PR ${n} was in the run it merges from`).to.be.true;
      const merging = new Set(decision.prs);
      for (const n of combo) {
        const stillQueued = step.state.prs[n] !== undefined;
        if (stillQueued) expect(merging.has(n), `tested PR ${n} lands with this merge`).to.be.true;
      }
      for (const n of decision.prs) {
        const me = prs.get(n) as SimulatedPr;
        for (const ahead of aheadOf(step.state, n)) {
          if (merging.has(ahead) || isAside(step.state, ahead)) continue;
          const other = prs.get(ahead) as SimulatedPr;
          expect(dependsOn(mode, me, other), `PR ${ahead} ahead of ${n} in its lane is merged first`).to.be
            .false;
        }
        for (const done of landed) {
          const other = prs.get(done.pr) as SimulatedPr;
          const mine = done.order.indexOf(n);
          const otherAhead = mine < 0 || done.order.indexOf(done.pr) < mine;
          const [later, earlier] = otherAhead ? [me, other] : [other, me];
          if (done.at <= (run?.startedAt ?? 0) || !dependsOn(mode, later, earlier)) continue;
          expect(combo.has(done.pr), `PR ${done.pr} landed under run ${run?.id} of ${n}`).to.be.true;
        }
      }
    }
  };
}

function isAside(state: PlannerState, n: number): boolean {
  const batchId = state.prs[n]?.batchId;
  const status = batchId == null ? undefined : state.batches[batchId]?.status;
  return status === "PENDING_FAILURE" || status === "BISECTING";
}

function aheadOf(state: PlannerState, n: number): number[] {
  const i = state.order.indexOf(n);
  return state.order.slice(0, Math.max(0, i)).filter((p) => state.prs[p]?.mergeId === null);
}

/**
 * A flake alone never fails a good PR: a PR ends FAILED only after at least two failed runs had it
 * under test (a batch and the bisection step that narrowed the failure down to it, or a run of it
 * alone and the run that confirmed it, or the run built on it that failed a test of its own run: its witness,
 * see ejection.ts). Without batching the queue fails a PR on its first failed
 * run of it alone, as the hosted queues do. The failure of a batch or of a probe by itself, which
 * one flake can cause, fails nobody.
 */
function checkNoFailureOnOneFlake(batch: boolean) {
  const tested = new Map<string, number[]>();
  const failedAlone = new Set<number>();
  const failures = new Map<number, number>();
  return ({ event, step, before }: StepObservation): void => {
    if (event.type === "TEST_RUN_FINISHED" && event.outcome !== "PASSED") {
      // The planner's word on what a run tests: a lone PR's witness tests it again, under the PRs stacked on it.
      const prs = before.runs[event.runId]?.prs ?? tested.get(event.runId) ?? [];
      if (before.runs[event.runId]?.status === "RUNNING") {
        if (prs.length === 1) failedAlone.add(prs[0] as number);
        for (const n of prs) failures.set(n, (failures.get(n) ?? 0) + 1);
      }
    }
    for (const d of step.decisions) if (d.type === "START_TEST_RUN") tested.set(d.runId, d.prs);
    for (const notice of step.notices) {
      if (notice.type !== "PR_STATE_CHANGED" || notice.to !== "FAILED") continue;
      const proven = (!batch && failedAlone.has(notice.pr)) || (failures.get(notice.pr) ?? 0) >= 2;
      expect(proven, `PR ${notice.pr} FAILED on one failed run that tested others too`).to.be.true;
    }
  };
}

/** No main run tests more PRs than the target size allows (ADAPTIVE picks within it). */
function checkBatchSizes(batch: boolean, ceiling: number) {
  return ({ step }: StepObservation): void => {
    for (const d of step.decisions) {
      if (d.type !== "START_TEST_RUN" || d.kind !== "main") continue;
      expect(d.prs.length, `run ${d.runId}`).to.be.at.most(batch ? ceiling : 1);
    }
  };
}

describe("planner properties over random workloads (fast-check, fake CI)", function () {
  this.timeout(PROPERTY_TIMEOUT_MS);
  it("nothing merges without a passing run containing it and everything ahead in its lane; every PR ends", () => {
    fc.assert(
      fc.property(
        settingsArb,
        workloadArb(true),
        worldArb(true),
        fc.boolean(),
        (settings, workload, world, redeliver) => {
          const report = runSimulation({
            settings,
            workload,
            world,
            redeliver,
            observe: checkMerges(settings.mode),
          });
          expect(report.stuck, "PRs left in the queue").to.equal(0);
          const ends: PrState[] = ["MERGED", "FAILED", "CANCELLED"];
          for (let n = 1; n <= workload.prCount; n++)
            if (!report.refused.includes(n)) expect(ends, `PR ${n}`).to.include(report.finalStates[n]);
        },
      ),
      RUNS,
    );
  });

  it("one flaky run never fails a PR, and no batch exceeds the target size", () => {
    fc.assert(
      fc.property(settingsArb, workloadArb(true), (settings, workload) => {
        const failures = checkNoFailureOnOneFlake(settings.batch);
        const sizes = checkBatchSizes(settings.batch, settings.batchingMinSize);
        runSimulation({
          settings,
          workload,
          observe: (o) => {
            failures(o);
            sizes(o);
          },
        });
      }),
      RUNS,
    );
  });

  it("without flakes a good PR is never FAILED and a bad one never MERGED", () => {
    fc.assert(
      fc.property(settingsArb, workloadArb(false), worldArb(false), (settings, workload, world) => {
        let prs: ReadonlyMap<number, SimulatedPr> = new Map();
        const report = runSimulation({
          settings,
          workload,
          world,
          observe: (o) => {
            prs = o.prs;
          },
        });
        for (const [n, pr] of prs) {
          const end = report.finalStates[n];
          if (pr.bad) expect(end, `bad PR ${n}`).to.not.equal("MERGED");
          else expect(end, `good PR ${n}`).to.not.equal("FAILED");
        }
      }),
      RUNS,
    );
  });

  // A PR whose batch failed a run steps out of the line while the failure is resolved (with a
  // pending-failure depth, once its successors' runs ended): PRs behind it may land first. Any other
  // overtaking is a bug.
  it("keeps FIFO order within a priority level among PRs of one lane that never failed a run", () => {
    fc.assert(
      fc.property(settingsArb, workloadArb(true), (settings, workload) => void checkFifo(settings, workload)),
      RUNS,
    );
  });

  it("a PR a probe's search cleared goes back behind unstarted PRs submitted before it (a found counterexample)", () => {
    // No-batch PR 14 waited, untested, ahead of the batch of 15 and 17; that batch was probed, failed, and
    // the search cleared 17, which went back ahead of every unstarted PR, 14 included.
    const settings: Settings = {
      mode: "SINGLE",
      concurrency: 3,
      batch: true,
      batchingMinSize: 2,
      batchingMode: "FIXED",
      batchingMaxWaitTimeMinutes: 1,
      pendingFailureDepth: 0,
      canOptimisticallyMerge: false,
      bisectionConcurrency: null,
      testingTimeoutMinutes: 0,
      ignoreQuarantinedTests: null,
    };
    const workload: WorkloadSpec = {
      ...DEFAULT_WORKLOAD,
      seed: 18494,
      prCount: 17,
      arrivalsPerHour: 16,
      failureProbability: 0.6,
      flakeProbability: 0.05,
      testMinutes: { min: 5, max: 30 },
      targets: { count: 2, perPr: 2, allProbability: 0, noneProbability: 0.1 },
      urgentProbability: 0.15,
      noBatchProbability: 0.2,
      cancelProbability: 0.1,
      quarantinedShare: 0.7,
    };
    expect(checkFifo(settings, workload), "PRs merged (4, 5, 14, 17)").to.equal(4);
  });
});

/** Asserts FIFO order among the merged PRs that never failed a run; returns how many merged. */
function checkFifo(settings: Settings, workload: WorkloadSpec): number {
  let prs: ReadonlyMap<number, SimulatedPr> = new Map();
  const failedOnce = new Set<number>();
  const report = runSimulation({
    settings,
    workload,
    observe: (o) => {
      prs = o.prs;
      for (const n of o.step.notices)
        if (n.type === "BATCH_PENDING_FAILURE") n.prs.forEach((p) => failedOnce.add(p));
    },
  });
  const position = new Map(report.mergeOrder.map((n, i) => [n, i]));
  const merged = [...prs.values()].filter((p) => position.has(p.number));
  for (const a of merged) {
    if (failedOnce.has(a.number)) continue;
    for (const b of merged) {
      if (a.arrivesAt >= b.arrivesAt || a.priority !== b.priority || !dependsOn(settings.mode, b, a))
        continue;
      expect(position.get(a.number), `${a.number} before ${b.number}`).to.be.at.most(
        position.get(b.number) as number,
      );
    }
  }
  return merged.length;
}
