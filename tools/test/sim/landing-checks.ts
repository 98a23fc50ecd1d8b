import { expect } from "chai";
import type { SimulatedPr, StepObservation } from "@mainline/sim";
import { dependsOn, related } from "./planner-arbitraries.js";

/** What a run tested: the commits on the target it started from, in order. */
interface TestedRun {
  combo: number[];
  heads: Map<number, string | undefined>;
  /** How many entries of the target's history it was built on. */
  since: number;
}

/** The target branch as the checker sees it: PRs landed by the queue, and pushes from outside. */
type TargetMove = { pr: number; order: readonly number[] } | { external: true };

/**
 * Whether one of two PRs must be tested on top of the other: the later one in the queue's order
 * depends on the earlier (a PR with no targets is affected by ALL only, and affects nothing).
 */
function chained(mode: string, order: readonly number[], a: SimulatedPr, b: SimulatedPr): boolean {
  const [i, j] = [order.indexOf(a.number), order.indexOf(b.number)];
  const aFirst = j < 0 || (i >= 0 && i < j);
  return aFirst ? dependsOn(mode, b, a) : dependsOn(mode, a, b);
}

/**
 * Exactly what was tested lands, and no untested combination is in flight. The checker keeps its own
 * record of the target branch, of PR heads and of what each run tested, from the events and decisions
 * alone (nothing read from the planner's state), and at every MERGE decision asks:
 * - the target moved only by PRs of the run, in the run's order, since it started (nothing from outside,
 *   no PR landed under it that shares a target with what merges now);
 * - the merge lands exactly the rest of the run: every PR it tested that has not landed, none it did not;
 * - every PR lands the head that was tested (a push since then means a new run);
 * - no merge still in flight shares a target with this one (the lanes invariant: merges of a lane are
 *   sequential, so two merges in flight never land a combination no run tested).
 */
export function checkLandsWhatWasTested(mode: string) {
  const runs = new Map<string, TestedRun>();
  const heads = new Map<number, string>();
  const target: TargetMove[] = [];
  const inFlight = new Map<string, number[]>();
  return ({ event, step, prs, before }: StepObservation): void => {
    const pr = (n: number): SimulatedPr => prs.get(n) as SimulatedPr;
    if (event.type === "PR_SUBMITTED" && event.facts !== undefined) heads.set(event.pr, event.facts.headSha);
    if (event.type === "PR_FACTS_UPDATED") heads.set(event.pr, event.facts.headSha);
    if (event.type === "TARGET_BRANCH_MOVED") target.push({ external: true });
    if (event.type === "MERGE_FINISHED") inFlight.delete(event.mergeId);
    for (const notice of step.notices) {
      if (notice.type === "PR_STATE_CHANGED" && notice.to === "MERGED")
        target.push({ pr: notice.pr, order: before.order });
    }
    for (const decision of step.decisions) {
      if (decision.type === "START_TEST_RUN") {
        const combo = [...decision.dependentPrs, ...decision.prs];
        runs.set(decision.runId, {
          combo,
          heads: new Map(combo.map((n) => [n, heads.get(n)])),
          since: target.length,
        });
      }
      if (decision.type !== "MERGE") continue;
      const what = `merge ${decision.mergeId} of [${decision.prs.join(",")}] from ${decision.runId}`;
      const run = runs.get(decision.runId);
      expect(run, `${what}: a run that was started`).to.not.equal(undefined);
      const { combo, since } = run as TestedRun;
      const under = target.slice(since);
      expect(
        under.some((m) => "external" in m),
        `${what}: the target moved from outside under the run`,
      ).to.equal(false);
      const landedOfRun = under.flatMap((m) => ("pr" in m && combo.includes(m.pr) ? [m.pr] : []));
      // Of the run's PRs, each landed after every PR ahead of it in the run that it depends on (in one
      // lane: a prefix, in order; PRs of lanes that meet only in this run may land in either order).
      landedOfRun.forEach((x, i) => {
        for (const y of combo.slice(0, combo.indexOf(x))) {
          if (!related(mode, pr(x), pr(y))) continue;
          expect(
            landedOfRun.slice(0, i),
            `${what}: PR ${x} of run [${combo.join(",")}] landed before ${y}`,
          ).to.include(y);
        }
      });
      expect(
        decision.prs,
        `${what}: the rest of the run [${combo.join(",")}] lands, nothing else`,
      ).to.deep.equal(combo.filter((n) => !landedOfRun.includes(n)));
      for (const m of under) {
        if (!("pr" in m) || combo.includes(m.pr)) continue;
        for (const n of decision.prs) {
          expect(
            chained(mode, m.order, pr(m.pr), pr(n)),
            `${what}: PR ${m.pr} landed under it, untested with ${n}`,
          ).to.be.false;
        }
      }
      for (const n of decision.prs) {
        expect(heads.get(n), `${what}: PR ${n} lands the head that was tested`).to.equal(
          (run as TestedRun).heads.get(n),
        );
      }
      // A merge in flight has not landed, so this run cannot have been built on it as on the target.
      for (const [mergeId, other] of inFlight) {
        for (const o of other) {
          for (const n of decision.prs) {
            expect(
              chained(mode, before.order, pr(o), pr(n)),
              `${what}: merge ${mergeId} of PR ${o} is in flight, never tested with ${n}`,
            ).to.be.false;
          }
        }
      }
      inFlight.set(decision.mergeId, [...decision.prs]);
    }
  };
}
