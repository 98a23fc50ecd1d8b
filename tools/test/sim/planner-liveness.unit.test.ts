import { expect } from "chai";
import fc from "fast-check";
import { runSimulation, type SimulatedPr } from "@mainline/sim";
import {
  dependsOn,
  PROPERTY_TIMEOUT_MS,
  RUNS,
  settingsArb,
  workloadArb,
  worldArb,
} from "./planner-arbitraries.js";

/**
 * Issue 30, item 1, liveness: without flakes (and without what decides a run besides its PRs:
 * conflicts, hung runs), every good PR the queue accepted and its author did not cancel ends MERGED,
 * every bad one FAILED or CANCELLED, nothing is left in the queue, and a PR is overtaken by few PRs of
 * its priority that depend on it, while heads are pushed, the target moves, merges stop midway, the
 * queue pauses and drains, PRs and the coordinator restart.
 *
 * Seen to fail against broken planners (docs/planner-properties.md):
 * - apply-event.ts updateFacts ends the PR (endPr CANCELLED, PR_CLOSED) on a new head instead of
 *   sending it back to NOT_READY: "good PR n ends MERGED".
 * - apply-event.ts updateSettings ignores a request for RUNNING (a paused or draining queue never
 *   resumes): "PRs left in the queue".
 * - queue-order.ts insertionIndex lets a PR in ahead of queued PRs of its own priority (`<` for `<=`):
 *   "PR n overtaken by".
 */
describe("planner properties: liveness (fast-check, no flakes, the world moves)", function () {
  this.timeout(PROPERTY_TIMEOUT_MS);
  it("every good PR ends MERGED unless cancelled or refused, every bad one FAILED or CANCELLED, none stuck", () => {
    fc.assert(
      fc.property(settingsArb, workloadArb(false), worldArb(false), (settings, workload, world) => {
        let prs: ReadonlyMap<number, SimulatedPr> = new Map();
        const cancelledByUser = new Set<number>();
        const report = runSimulation({
          settings,
          workload,
          world,
          observe: (o) => {
            prs = o.prs;
            for (const n of o.step.notices)
              if (n.type === "PR_STATE_CHANGED" && n.reason === "CANCELLED_BY_USER")
                cancelledByUser.add(n.pr);
          },
        });
        expect(report.stuck, "PRs left in the queue").to.equal(0);
        for (const [n, pr] of prs) {
          if (report.refused.includes(n)) continue;
          const end = report.finalStates[n];
          if (cancelledByUser.has(n)) {
            expect(pr.cancelAt, `PR ${n} cancelled by its author`).to.not.equal(null);
            continue;
          }
          expect(end, `${pr.bad ? "bad" : "good"} PR ${n}`).to.equal(pr.bad ? "FAILED" : "MERGED");
        }
      }),
      RUNS,
    );
  });

  /**
   * Bounded overtaking: among the PRs of one priority that a PR depends on or that depend on it, those
   * that entered the queue after it (its last entry: a head push sends it to the back) and merged before
   * it are fewer than what can pass it while a failure it shares a batch with is searched (a batch in
   * each test slot, for each bisection round). Without a bad PR, none overtakes it.
   */
  it("a PR is overtaken by a bounded number of later PRs of its priority", () => {
    fc.assert(
      fc.property(settingsArb, workloadArb(false), worldArb(false), (settings, workload, world) => {
        let prs: ReadonlyMap<number, SimulatedPr> = new Map();
        const entered = new Map<number, number>();
        let tick = 0;
        const report = runSimulation({
          settings,
          workload,
          world,
          observe: (o) => {
            prs = o.prs;
            for (const n of o.step.notices)
              if (n.type === "PR_STATE_CHANGED" && n.from === "NOT_READY" && n.to === "PENDING")
                entered.set(n.pr, tick++);
          },
        });
        const size = settings.batch ? settings.batchingMinSize : 1;
        const anyBad = [...prs.values()].some((p) => p.bad);
        const bound = anyBad ? settings.concurrency * size * (Math.ceil(Math.log2(size)) + 2) : 0;
        const position = new Map(report.mergeOrder.map((n, i) => [n, i]));
        for (const p of report.mergeOrder) {
          const me = prs.get(p) as SimulatedPr;
          const overtakers = report.mergeOrder.slice(0, position.get(p)).filter((q) => {
            const other = prs.get(q) as SimulatedPr;
            return (
              other.priority === me.priority &&
              (entered.get(q) ?? 0) > (entered.get(p) ?? 0) &&
              dependsOn(settings.mode, other, me)
            );
          });
          expect(overtakers.length, `PR ${p} overtaken by ${overtakers.join(",")}`).to.be.at.most(bound);
        }
      }),
      RUNS,
    );
  });
});
