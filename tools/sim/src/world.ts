import type { QueueEvent } from "@mainline/queue-coordinator/domain/index";
import { parseImpactedTargets } from "@mainline/queue-coordinator/api/command-parser";
import { createPrng, type Prng } from "./prng.js";
import type { SimulatedPr } from "./workload.js";

const MINUTE = 60_000;

/**
 * What happens around the queue besides CI verdicts, drawn at random from `seed`: authors push to
 * queued PRs, someone pushes to the target, CI reports conflicts or never answers, a merge through
 * the code host stops midway, operators pause, drain and resume, users restart PRs, the coordinator
 * restarts from its stored state, and results arrive again long after.
 */
export interface WorldSpec {
  seed: number;
  /** Chance per PR of one head push some time after it was submitted. */
  headPushProbability: number;
  /** Pushes to the target branch from outside the queue, spread over the workload. */
  targetMoves: number;
  /** Chance per run that CI reports a merge conflict of one of the PRs it tests. */
  conflictProbability: number;
  /** Chance per run that CI never answers (only the queue's testing timeout ends it). */
  hangProbability: number;
  /** Chance per merge that only a prefix of its PRs lands before the target moves (a GitHub API merge refused midway). */
  partialMergeProbability: number;
  /** Chance per merge that the code host refuses it with nothing landed (another lane's merge moved the target). */
  refusedMergeProbability: number;
  /** PAUSED then RUNNING again, and DRAINING then RUNNING again, each this many times. */
  pauses: number;
  drains: number;
  /** Chance per PR that its author asks for a restart once. */
  prRestartProbability: number;
  /** Times the coordinator restarts from its stored state (a JSON round trip). */
  coordinatorRestarts: number;
  /** Chance per result that it is delivered a second time, later. */
  lateRedeliveryProbability: number;
}

export const CALM_WORLD: Omit<WorldSpec, "seed"> = {
  headPushProbability: 0,
  targetMoves: 0,
  conflictProbability: 0,
  hangProbability: 0,
  partialMergeProbability: 0,
  refusedMergeProbability: 0,
  pauses: 0,
  drains: 0,
  prRestartProbability: 0,
  coordinatorRestarts: 0,
  lateRedeliveryProbability: 0,
};

/** The simulator's own event: the coordinator process restarts and reloads its state. */
export type WorldEvent = QueueEvent | { type: "COORDINATOR_RESTARTED" };

export interface TimedEvent {
  at: number;
  event: WorldEvent;
}

/** What CI answers to one run: a verdict at some time, or nothing at all. */
export type RunAnswer = { outcome: "PASSED" | "FAILED" } | { outcome: "MERGE_CONFLICT"; pr: number } | null;

export class World {
  private readonly rng: Prng;
  /** Target moves from outside so far, to fail a merge decided before one. */
  externalMoves = 0;
  /** PRs for which CI reported a conflict (good PRs the world made fail). */
  readonly conflicted = new Set<number>();

  constructor(readonly spec: WorldSpec) {
    this.rng = createPrng(spec.seed ^ 0x30f1d);
  }

  /** The events scheduled up front, within the time the workload's PRs arrive (plus two hours). */
  initialEvents(prs: readonly SimulatedPr[]): TimedEvent[] {
    const { rng, spec } = this;
    const span = Math.max(0, ...prs.map((p) => p.arrivesAt)) + 120 * MINUTE;
    const at = (): number => rng.int(0, span);
    const out: TimedEvent[] = [];
    for (const pr of prs) {
      if (rng.chance(spec.headPushProbability)) {
        const when = pr.arrivesAt + rng.int(1, 90) * MINUTE;
        const headSha = `sha-${pr.number}-pushed`;
        const facts = { ...FACTS, headBranch: `feature-${pr.number}`, headSha, title: `PR ${pr.number}` };
        out.push({ at: when, event: { type: "PR_FACTS_UPDATED", pr: pr.number, facts } });
        const targets = parseImpactedTargets(headSha, pr.targets);
        out.push({ at: when, event: { type: "IMPACTED_TARGETS_SET", pr: pr.number, targets } });
      }
      if (rng.chance(spec.prRestartProbability)) {
        out.push({
          at: pr.arrivesAt + rng.int(1, 60) * MINUTE,
          event: { type: "PR_RESTART_REQUESTED", pr: pr.number },
        });
      }
    }
    for (let i = 0; i < spec.targetMoves; i++) out.push({ at: at(), event: { type: "TARGET_BRANCH_MOVED" } });
    const interval = (held: "PAUSED" | "DRAINING"): void => {
      const from = at();
      out.push({ at: from, event: { type: "SETTINGS_UPDATED", patch: { state: held } } });
      const to = from + rng.int(1, 60) * MINUTE;
      out.push({ at: to, event: { type: "SETTINGS_UPDATED", patch: { state: "RUNNING" } } });
    };
    for (let i = 0; i < spec.pauses; i++) interval("PAUSED");
    for (let i = 0; i < spec.drains; i++) interval("DRAINING");
    for (let i = 0; i < spec.coordinatorRestarts; i++)
      out.push({ at: at(), event: { type: "COORDINATOR_RESTARTED" } });
    return out;
  }

  /** CI's answer to a run of `prs` that the fake CI judged `broken` or not; null: it never answers. */
  answer(prs: readonly number[], broken: boolean, timeoutOn: boolean): RunAnswer {
    const { rng, spec } = this;
    if (timeoutOn && rng.chance(spec.hangProbability)) return null;
    if (prs.length > 0 && rng.chance(spec.conflictProbability)) {
      const pr = rng.pick(prs);
      this.conflicted.add(pr);
      return { outcome: "MERGE_CONFLICT", pr };
    }
    return { outcome: broken ? "FAILED" : "PASSED" };
  }

  /** How a merge of `prs` ends, seen at its delivery: moved targets refuse it, or it stops midway. */
  mergeResult(mergeId: string, prs: readonly number[], movesAtDecision: number): QueueEvent {
    if (this.externalMoves > movesAtDecision)
      return { type: "MERGE_FINISHED", mergeId, outcome: "TARGET_MOVED" };
    if (this.rng.chance(this.spec.refusedMergeProbability)) {
      return { type: "MERGE_FINISHED", mergeId, outcome: "TARGET_MOVED", mergedPrs: [] };
    }
    // A merge of several PRs through the code host's API stops after at least one of them landed.
    if (prs.length > 1 && this.rng.chance(this.spec.partialMergeProbability)) {
      const mergedPrs = prs.slice(0, this.rng.int(1, prs.length - 1));
      return { type: "MERGE_FINISHED", mergeId, outcome: "TARGET_MOVED", mergedPrs };
    }
    return { type: "MERGE_FINISHED", mergeId, outcome: "MERGED" };
  }

  /** Minutes after its first delivery that a result comes again, or null. */
  lateRedelivery(): number | null {
    return this.rng.chance(this.spec.lateRedeliveryProbability) ? this.rng.int(1, 120) : null;
  }
}

const FACTS = { author: "sim", baseBranch: "main", open: true };
