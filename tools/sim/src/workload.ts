import { DEFAULT_PRIORITY_NAME, PRIORITY_NAMES } from "@mainline/contract";
import type { PriorityName } from "@mainline/contract";
import { createPrng } from "./prng.js";

/** How to generate a workload (the simulator's default load, and `mainline simulate` without --workload). */
export interface WorkloadSpec {
  seed: number;
  prCount: number;
  /** Mean PR arrivals per hour (exponential gaps). */
  arrivalsPerHour: number;
  /** Chance that a PR's own change breaks the tests. */
  failureProbability: number;
  /** Chance that any run fails for no reason. */
  flakeProbability: number;
  /** Of the runs failed by a flake, the share whose failing tests are all quarantined (absent: 0). */
  quarantinedShare?: number;
  /** A PR's test time, drawn uniformly in whole minutes. */
  testMinutes: { min: number; max: number };
  mergeMinutes: number;
  /** Targets for parallel mode: PRs pick 1..perPr of `count` targets; some pick ALL or none. */
  targets: { count: number; perPr: number; allProbability: number; noneProbability: number };
  urgentProbability: number;
  noBatchProbability: number;
  /** Chance that a PR is cancelled by its author some time after submission. */
  cancelProbability: number;
}

export const DEFAULT_WORKLOAD: WorkloadSpec = {
  seed: 1,
  prCount: 200,
  arrivalsPerHour: 12,
  failureProbability: 0.1,
  flakeProbability: 0.02,
  testMinutes: { min: 20, max: 40 },
  mergeMinutes: 1,
  targets: { count: 6, perPr: 2, allProbability: 0.02, noneProbability: 0.02 },
  urgentProbability: 0.01,
  noBatchProbability: 0.05,
  cancelProbability: 0.02,
};

export type SimulatedPriority = PriorityName;

/** One PR of a workload, with what the simulated CI will find. Times are in virtual milliseconds. */
export interface SimulatedPr {
  number: number;
  arrivesAt: number;
  bad: boolean;
  /** How long a run takes when this PR is under test; a run takes the longest of its PRs. */
  testMinutes: number;
  priority: SimulatedPriority;
  noBatch: boolean;
  targets: string[] | "ALL";
  cancelAt: number | null;
  /** Issue 28: the PR it is stacked on (its base branch is that PR's head branch); absent: on the target. */
  stackedOn?: number;
}

/** Everything the simulator replays: the PRs, the flake rate per run, and the seed of the flakes. */
export interface Workload {
  name: string;
  seed: number;
  flakeRate: number;
  /** Of the runs failed by a flake, the share whose every failing test is quarantined (absent: 0). */
  quarantinedShare?: number;
  mergeMinutes: number;
  prs: SimulatedPr[];
}

const MINUTE = 60_000;
const [URGENT, HIGH, , LOW] = PRIORITY_NAMES;

export function generateWorkload(spec: WorkloadSpec): SimulatedPr[] {
  const rng = createPrng(spec.seed);
  const prs: SimulatedPr[] = [];
  let at = 0;
  const names = Array.from({ length: spec.targets.count }, (_, i) => `t${i}`);
  for (let n = 1; n <= spec.prCount; n++) {
    at += Math.round((-Math.log(1 - rng.next()) / spec.arrivalsPerHour) * 60 * MINUTE);
    let targets: string[] | "ALL";
    if (rng.chance(spec.targets.allProbability)) targets = "ALL";
    else if (rng.chance(spec.targets.noneProbability)) targets = [];
    else {
      const picked = new Set<string>();
      const k = rng.int(1, Math.max(1, spec.targets.perPr));
      while (picked.size < Math.min(k, names.length)) picked.add(rng.pick(names));
      targets = [...picked].sort();
    }
    prs.push({
      number: n,
      arrivesAt: at,
      bad: rng.chance(spec.failureProbability),
      testMinutes: rng.int(spec.testMinutes.min, spec.testMinutes.max),
      priority: rng.chance(spec.urgentProbability)
        ? URGENT
        : // Non-urgent levels, the default twice as likely as high or low.
          rng.pick([HIGH, DEFAULT_PRIORITY_NAME, DEFAULT_PRIORITY_NAME, LOW]),
      noBatch: rng.chance(spec.noBatchProbability),
      targets,
      cancelAt: rng.chance(spec.cancelProbability) ? at + rng.int(1, 120) * MINUTE : null,
    });
  }
  return prs;
}

/** A generated workload in the shape the simulator replays. */
export function workloadFromSpec(spec: WorkloadSpec, name = "generated"): Workload {
  return {
    name,
    seed: spec.seed,
    flakeRate: spec.flakeProbability,
    quarantinedShare: spec.quarantinedShare ?? 0,
    mergeMinutes: spec.mergeMinutes,
    prs: generateWorkload(spec),
  };
}
