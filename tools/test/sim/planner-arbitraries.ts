import fc from "fast-check";
import {
  CALM_WORLD,
  DEFAULT_WORKLOAD,
  type SimulatedPr,
  type WorkloadSpec,
  type WorldSpec,
} from "@mainline/sim";

/** Runs per property: the default keeps each file to a few seconds; PROPERTY_RUNS=1000 searches harder. */
export const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 100) };
/**
 * A property's time grows with its runs (a run of 20 PRs takes a few milliseconds, up to ~50 on a loaded machine).
 * The floor is .mocharc's 60 s: at 100 runs the limits property takes 6 s alone but overran 20 s twice in `make
 * check` at load 28-35 on the shared 2-core machine (four property files at once, no planner change).
 */
export const PROPERTY_TIMEOUT_MS = Math.max(60_000, RUNS.numRuns * 100);

export const settingsArb = fc.record({
  mode: fc.constantFrom("SINGLE", "PARALLEL"),
  concurrency: fc.integer({ min: 1, max: 4 }),
  batch: fc.boolean(),
  batchingMinSize: fc.integer({ min: 2, max: 4 }),
  batchingMode: fc.constantFrom("FIXED", "ADAPTIVE"),
  batchingMaxWaitTimeMinutes: fc.integer({ min: 1, max: 10 }),
  pendingFailureDepth: fc.integer({ min: 0, max: 2 }),
  canOptimisticallyMerge: fc.boolean(),
  bisectionConcurrency: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  // Runs take 5 to 30 minutes: a timeout of 45 fires only on runs whose CI never answers.
  testingTimeoutMinutes: fc.constantFrom(0, 45),
  // Issue 26: not honoured, a quarantined test is a known flaky one and its run is retried in place.
  ignoreQuarantinedTests: fc.constantFrom(null, false),
});

export type Settings = typeof settingsArb extends fc.Arbitrary<infer T> ? T : never;

export const workloadArb = (flakes: boolean, failures = true) =>
  fc
    .record({
      seed: fc.integer({ min: 1, max: 1_000_000 }),
      prCount: fc.integer({ min: 1, max: Number(process.env.PROPERTY_MAX_PRS ?? 20) }),
      arrivalsPerHour: fc.integer({ min: 2, max: 60 }),
      failureProbability: failures ? fc.constantFrom(0, 0.1, 0.3, 0.6) : fc.constant(0),
      flakeProbability: flakes ? fc.constantFrom(0.05, 0.2) : fc.constant(0),
      quarantinedShare: flakes ? fc.constantFrom(0, 0.7) : fc.constant(0),
      urgentProbability: fc.constantFrom(0, 0.15),
      noBatchProbability: fc.constantFrom(0, 0.2),
      cancelProbability: fc.constantFrom(0, 0.1),
      targets: fc.record({
        count: fc.integer({ min: 1, max: 4 }),
        perPr: fc.integer({ min: 1, max: 2 }),
        allProbability: fc.constantFrom(0, 0.1),
        noneProbability: fc.constantFrom(0, 0.1),
      }),
    })
    .map((w): WorkloadSpec => ({ ...DEFAULT_WORKLOAD, testMinutes: { min: 5, max: 30 }, ...w }));

/**
 * The world moves: each kind of disturbance is off in some runs and frequent in others. `verdicts`
 * false keeps out what decides a run's outcome besides the PRs (conflicts and hung runs), so that
 * liveness can be asked of every good PR.
 */
export const worldArb = (verdicts: boolean) =>
  fc
    .record({
      seed: fc.integer({ min: 1, max: 1_000_000 }),
      headPushProbability: fc.constantFrom(0, 0.1, 0.3),
      targetMoves: fc.integer({ min: 0, max: 3 }),
      conflictProbability: verdicts ? fc.constantFrom(0, 0.05, 0.15) : fc.constant(0),
      hangProbability: verdicts ? fc.constantFrom(0, 0.1) : fc.constant(0),
      partialMergeProbability: fc.constantFrom(0, 0.1, 0.3),
      // A merge refused with nothing landed found the bug of planner-landing.unit.test.ts's counterexample.
      refusedMergeProbability: fc.constantFrom(0, 0.3),
      pauses: fc.integer({ min: 0, max: 2 }),
      drains: fc.integer({ min: 0, max: 1 }),
      prRestartProbability: fc.constantFrom(0, 0.1),
      coordinatorRestarts: fc.integer({ min: 0, max: 3 }),
      lateRedeliveryProbability: fc.constantFrom(0, 0.2),
    })
    .map((w): WorldSpec => ({ ...CALM_WORLD, ...w }));

/**
 * Independent of the planner: whether `later` must wait for `earlier` (rules 11, 12 and
 * compat-notes): overlap, or `earlier` is ALL; an empty list depends on nothing but ALL, and
 * nothing depends on it.
 */
export function dependsOn(mode: string, later: SimulatedPr, earlier: SimulatedPr): boolean {
  if (mode === "SINGLE" || earlier.targets === "ALL") return true;
  if (earlier.targets.length === 0) return false;
  if (later.targets === "ALL") return true;
  const mine = later.targets;
  return earlier.targets.some((t) => mine.includes(t));
}

/** Whether the two PRs change something in common: they may never land untested together. */
export function related(mode: string, a: SimulatedPr, b: SimulatedPr): boolean {
  return dependsOn(mode, a, b) || dependsOn(mode, b, a);
}
