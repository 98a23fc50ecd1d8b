import type { FailedTestsKnowledge, RunTestFailures } from "@mainline/queue-coordinator/domain/index";
import type { Prng } from "./prng.js";

/**
 * What the simulated CI says of a failed run's tests, and what flaky-analytics knows of them (issue 26): a bad
 * PR fails its own test, healthy until then; a flake fails a test that, in `quarantinedShare` of the flaky
 * failures, flaky-analytics already quarantines (bench/merge-efficiency/README.md), and that otherwise looks like
 * a real failure. Quarantining is on, so the queue's test-aware settings follow it unless a workload sets them.
 */
export interface FailedRunTests {
  tests: RunTestFailures;
  knowledge: FailedTestsKnowledge;
}

/** A fake test id in @mainline/junit's format (a UUID v5), one per test name. */
function testIdOf(kind: number, n: number): string {
  return `00000000-0000-5000-8${kind.toString(16).padStart(3, "0")}-${n.toString(16).padStart(12, "0")}`;
}

const REAL = 1;
const QUARANTINED = 2;
const LOOKS_REAL = 3;

export function failedRunTests(
  badPrs: readonly number[],
  quarantinedShare: number,
  rng: Prng,
  run: number,
): FailedRunTests {
  if (badPrs.length > 0) {
    const failed = badPrs.map((n) => ({ id: testIdOf(REAL, n), name: `test of PR ${n}` }));
    return { tests: { failed, truncated: false }, knowledge: known(failed, false) };
  }
  // Drawn only when some flakes are quarantined, so workloads without the field replay exactly as before.
  const quarantined = quarantinedShare > 0 && rng.chance(quarantinedShare);
  const failed = quarantined
    ? [{ id: testIdOf(QUARANTINED, 1), name: "quarantined flaky test" }]
    : [{ id: testIdOf(LOOKS_REAL, run), name: `flaky test ${run}` }];
  return { tests: { failed, truncated: false }, knowledge: known(failed, quarantined) };
}

function known(failed: RunTestFailures["failed"], quarantined: boolean): FailedTestsKnowledge {
  // A quarantined test is a flaky one; the rest look like real failures (healthy until now).
  const status = quarantined ? ("flaky" as const) : ("healthy" as const);
  return {
    quarantiningEnabled: true,
    tests: Object.fromEntries(
      failed.map((t) => [t.id, { status, quarantined, statusSince: null, failedOnTargetAt: null }]),
    ),
  };
}
