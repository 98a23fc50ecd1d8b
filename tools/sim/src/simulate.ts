import { MainlineError } from "@mainline/kit/errors/index";
import {
  createPlannerState,
  plan,
  type PlannerOptions,
  type PlannerState,
  type PlanningStep,
  type PrState,
  type QueueEvent,
} from "@mainline/queue-coordinator/domain/index";
import {
  parseImpactedTargets,
  parsePriority,
  parseQueueSettings,
} from "@mainline/queue-coordinator/api/command-parser";
import { createPrng } from "./prng.js";
import { factsOf, submittedWithStack } from "./stacks.js";
import { failedRunTests } from "./run-tests.js";
import { World, type WorldEvent, type WorldSpec } from "./world.js";
import { workloadFromSpec, type SimulatedPr, type Workload, type WorkloadSpec } from "./workload.js";

const MINUTE = 60_000;

export interface SimulationOptions {
  /** Queue settings as updateQueue would take them. */
  settings: Record<string, unknown>;
  /** Explicit PRs (a workload file), or how to generate them. */
  workload: Workload | WorkloadSpec;
  planner?: PlannerOptions;
  /** Deliver every CI and merge result twice (a redelivered message must change nothing). */
  redeliver?: boolean;
  /** Head pushes, target moves, conflicts, hung runs, pauses, restarts... (none without it). */
  world?: WorldSpec;
  /** Called after every planning step, e.g. to check invariants. */
  observe?: (observation: StepObservation) => void;
  maxSteps?: number;
}

export interface StepObservation {
  /** A coordinator restart shows as the TIME_PASSED it replans with. */
  event: QueueEvent;
  at: number;
  before: PlannerState;
  step: PlanningStep;
  prs: ReadonlyMap<number, SimulatedPr>;
}

export interface SimulationReport {
  prs: number;
  merged: number;
  failed: number;
  cancelled: number;
  /** PRs still in the queue when nothing was left to happen (0 unless the planner is stuck). */
  stuck: number;
  /** Runs started, cancelled ones included. */
  mainRuns: number;
  bisectionRuns: number;
  /** Bad PRs that merged (0 unless the planner is broken) and good PRs that ended FAILED (flakes). */
  badMerged: number;
  goodFailed: number;
  /** Good PRs that ended FAILED for no conflict: failed by flakes. */
  goodFailedByFlakes: number;
  /** Failed runs the queue counted as passed, every failed test being quarantined (issue 26). */
  runsPassedByQuarantine: number;
  /** Failed runs retried in place, their only failures known flaky tests (issue 26). */
  flakyRetries: number;
  runsPerMergedPr: number;
  mergedPerHour: number;
  timeToMergeMinutes: { p50: number; p90: number; p99: number; mean: number };
  hours: number;
  steps: number;
  finalStates: Record<number, PrState>;
  mergeOrder: number[];
  /** PRs whose submission the queue refused (it was draining). */
  refused: number[];
  /** PRs the world made conflict (good PRs that may rightly end FAILED). */
  conflicted: number[];
}

interface Pending {
  at: number;
  seq: number;
  event: WorldEvent;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

/** The time-to-merge figures of sorted minutes (each percentile is the value at floor(p x n)); 0 for none. */
export function timeToMerge(sorted: readonly number[]): SimulationReport["timeToMergeMinutes"] {
  return {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: sorted.length === 0 ? 0 : sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

function isExplicit(workload: Workload | WorkloadSpec): workload is Workload {
  return "prs" in workload;
}

/**
 * Runs the planner over a workload in virtual time with a deterministic fake CI: a run fails
 * when its projected branch contains a bad PR, or by a flake (drawn per run from the workload's
 * seed); it takes the longest test time of the PRs it tests. Events at the same time are applied
 * in the order they were scheduled.
 */
export function runSimulation(options: SimulationOptions): SimulationReport {
  const source = isExplicit(options.workload) ? options.workload : workloadFromSpec(options.workload);
  const workload = source.prs;
  const byNumber = new Map(workload.map((p) => [p.number, p]));
  const rng = createPrng(source.seed ^ 0x5eed);
  // Its own stream, so the flakes themselves fall on the same runs with or without quarantine.
  const quarantineRng = createPrng(source.seed ^ 0x9a7);
  const quarantinedShare = source.quarantinedShare ?? 0;
  let runsPassedByQuarantine = 0;
  let flakyRetries = 0;
  let state = createPlannerState("main", parseQueueSettings(options.settings));
  const pending: Pending[] = [];
  let seq = 0;
  const world = options.world === undefined ? null : new World(options.world);
  const refused: number[] = [];
  /** External target moves seen when each merge in flight was decided. */
  const movesAtMerge = new Map<string, number>();
  const schedule = (at: number, event: WorldEvent): void => {
    pending.push({ at, seq: seq++, event });
  };
  for (const pr of workload) {
    schedule(pr.arrivesAt, {
      type: "PR_SUBMITTED",
      pr: pr.number,
      priority: parsePriority(pr.priority),
      noBatch: pr.noBatch,
      facts: factsOf(pr.number),
      impactedTargets: parseImpactedTargets(`sha-${pr.number}`, pr.targets),
    });
    if (pr.cancelAt !== null) schedule(pr.cancelAt, { type: "PR_CANCELLED", pr: pr.number });
  }
  for (const { at, event } of world?.initialEvents(workload) ?? []) schedule(at, event);
  const deliver = (at: number, result: QueueEvent): void => {
    schedule(at, result);
    if (options.redeliver === true) schedule(at, result);
    const late = world?.lateRedelivery() ?? null;
    if (late !== null) schedule(at + late * MINUTE, result);
  };

  const finalStates: Record<number, PrState> = {};
  const mergedAt = new Map<number, number>();
  const mergeOrder: number[] = [];
  let mainRuns = 0;
  let bisectionRuns = 0;
  let wakeScheduled: number | null = null;
  let now = 0;
  // The last moment something happened (a wake-up that changes nothing does not stretch the hours).
  let lastEventAt = 0;
  let steps = 0;
  const maxSteps = options.maxSteps ?? 200_000;

  while (pending.length > 0) {
    if (steps++ > maxSteps) break;
    let index = 0;
    for (let i = 1; i < pending.length; i++) {
      const a = pending[i] as Pending;
      const b = pending[index] as Pending;
      if (a.at < b.at || (a.at === b.at && a.seq < b.seq)) index = i;
    }
    const next = pending.splice(index, 1)[0] as Pending;
    now = Math.max(now, next.at);
    let event: QueueEvent;
    if (next.event.type === "COORDINATOR_RESTARTED") {
      // Only what the store keeps survives: the state as a JSON document. The new process replans.
      state = JSON.parse(JSON.stringify(state)) as PlannerState;
      event = { type: "TIME_PASSED" };
    } else if (next.event.type === "MERGE_FINISHED" && world !== null) {
      const decidedAfter = movesAtMerge.get(next.event.mergeId) ?? world.externalMoves;
      const merge = state.merges[next.event.mergeId];
      event = merge === undefined ? next.event : world.mergeResult(merge.id, merge.prs, decidedAfter);
    } else if (next.event.type === "PR_SUBMITTED") {
      event = submittedWithStack(next.event, byNumber, finalStates) ?? { type: "TIME_PASSED" };
    } else {
      event = next.event;
    }
    if (event.type === "TARGET_BRANCH_MOVED" && world !== null) world.externalMoves++;
    if (event.type === "TIME_PASSED") wakeScheduled = null;
    const before = state;
    let step: PlanningStep;
    try {
      step = plan(state, event, now, options.planner);
    } catch (error) {
      // A cancel for a PR already gone or being merged is refused; the simulation goes on.
      if (error instanceof MainlineError && !(error.code === "INTERNAL")) {
        if (event.type === "PR_SUBMITTED") refused.push(event.pr);
        continue;
      }
      throw error;
    }
    state = step.state;
    options.observe?.({ event, at: now, before, step, prs: byNumber });
    if (step.notices.length > 0 || step.decisions.length > 0) lastEventAt = now;

    for (const notice of step.notices) {
      if (notice.type === "RUN_FAILURE_DECIDED") {
        if (notice.decision.kind === "COUNT_AS_PASSED") runsPassedByQuarantine++;
        if (notice.decision.kind === "RETRY_IN_PLACE") flakyRetries++;
      }
      if (notice.type !== "PR_STATE_CHANGED") continue;
      finalStates[notice.pr] = notice.to;
      if (notice.to === "MERGED") {
        mergedAt.set(notice.pr, now);
        mergeOrder.push(notice.pr);
      }
    }
    for (const decision of step.decisions) {
      if (decision.type === "START_TEST_RUN") {
        if (decision.kind === "main") mainRuns++;
        else bisectionRuns++;
        const combo = [...decision.dependentPrs, ...decision.prs];
        const badPrs = combo.filter((n) => byNumber.get(n)?.bad === true);
        const broken = badPrs.length > 0 || rng.chance(source.flakeRate);
        const minutes = Math.max(...decision.prs.map((n) => byNumber.get(n)?.testMinutes ?? 0));
        const answer =
          world === null
            ? { outcome: broken ? ("FAILED" as const) : ("PASSED" as const) }
            : world.answer(decision.prs, broken, state.settings.testingTimeoutMinutes > 0);
        if (answer === null) continue;
        const { runId } = decision;
        deliver(
          now + minutes * MINUTE,
          answer.outcome === "MERGE_CONFLICT"
            ? { type: "TEST_RUN_FINISHED", runId, outcome: answer.outcome, conflictingPr: answer.pr }
            : answer.outcome === "FAILED"
              ? {
                  type: "TEST_RUN_FINISHED",
                  runId,
                  outcome: answer.outcome,
                  ...failedRunTests(badPrs, quarantinedShare, quarantineRng, mainRuns + bisectionRuns),
                }
              : { type: "TEST_RUN_FINISHED", runId, outcome: answer.outcome },
        );
      } else if (decision.type === "MERGE") {
        if (world !== null) movesAtMerge.set(decision.mergeId, world.externalMoves);
        const result: QueueEvent = { type: "MERGE_FINISHED", mergeId: decision.mergeId, outcome: "MERGED" };
        deliver(now + source.mergeMinutes * MINUTE, result);
      }
    }
    if (step.wakeAt !== null && (wakeScheduled === null || step.wakeAt < wakeScheduled)) {
      wakeScheduled = step.wakeAt;
      schedule(Math.max(now, step.wakeAt), { type: "TIME_PASSED" });
    }
  }

  const times = workload
    .filter((p) => mergedAt.has(p.number))
    .map((p) => ((mergedAt.get(p.number) as number) - p.arrivesAt) / MINUTE)
    .sort((a, b) => a - b);
  const count = (s: PrState): number => Object.values(finalStates).filter((x) => x === s).length;
  const merged = count("MERGED");
  const hours = lastEventAt / (60 * MINUTE);
  return {
    prs: workload.length,
    merged,
    failed: count("FAILED"),
    cancelled: count("CANCELLED"),
    stuck: Object.keys(state.prs).length,
    mainRuns,
    bisectionRuns,
    badMerged: workload.filter((p) => p.bad && finalStates[p.number] === "MERGED").length,
    goodFailed: workload.filter((p) => !p.bad && finalStates[p.number] === "FAILED").length,
    goodFailedByFlakes: workload.filter(
      (p) => !p.bad && finalStates[p.number] === "FAILED" && world?.conflicted.has(p.number) !== true,
    ).length,
    runsPassedByQuarantine,
    flakyRetries,
    runsPerMergedPr: merged === 0 ? 0 : (mainRuns + bisectionRuns) / merged,
    mergedPerHour: hours === 0 ? 0 : merged / hours,
    timeToMergeMinutes: timeToMerge(times),
    hours,
    steps,
    finalStates,
    mergeOrder,
    refused,
    conflicted: [...(world?.conflicted ?? [])],
  };
}
