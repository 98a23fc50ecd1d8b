import { type FailedTestsKnowledge, type PlanningStep, type TestKnowledge } from "../../src/domain/index.js";
import { num, Scenario, type Row } from "./scenario-table.js";

export type { Row };

/** Tests by kind: q (quarantined), f (known flaky), b (broken on the target), r (a real, healthy test). */
const KINDS: Record<string, Partial<TestKnowledge>> = {
  q: { status: "flaky", quarantined: true },
  f: { status: "flaky" },
  b: { status: "broken", statusSince: 1_000 },
  r: { status: "healthy" },
};

const idOf = (name: string): string =>
  `00000000-0000-5000-8000-${[...name]
    .map((c) => c.charCodeAt(0).toString(16))
    .join("")
    .padStart(12, "0")
    .slice(-12)}`;

/**
 * The scenario driver plus "fail-tests AB q1,r1" (the run testing exactly A, B failed tests q1 and r1, each known
 * by its first letter as KINDS says) and "fail-blind AB q1" (the same failure, flaky-analytics unreachable).
 */
export class TestAwareScenario extends Scenario {
  override do(line: string): PlanningStep {
    const [verb = "", prs = "", names = ""] = line.split(" ");
    if (verb !== "fail-tests" && verb !== "fail-blind") return super.do(line);
    const failed = names.split(",").map((name) => ({ id: idOf(name), name }));
    const knowledge: FailedTestsKnowledge = {
      quarantiningEnabled: true,
      tests: Object.fromEntries(
        failed.map((t) => [
          t.id,
          {
            status: "unknown",
            quarantined: false,
            statusSince: null,
            failedOnTargetAt: null,
            ...KINDS[t.name[0] ?? ""],
          },
        ]),
      ),
    };
    return this.apply({
      type: "TEST_RUN_FINISHED",
      runId: this.runningRunFor(prs),
      outcome: "FAILED",
      tests: { failed, truncated: false },
      knowledge: verb === "fail-blind" ? null : knowledge,
    });
  }

  /** The history detail of the PR's failure in the last step: what decided it when no run of its own did. */
  failedDetailOf(l: string): string | undefined {
    const failed = this.last?.notices.find(
      (x) => x.type === "PR_STATE_CHANGED" && x.pr === num(l) && x.to === "FAILED",
    );
    return failed?.type === "PR_STATE_CHANGED" ? failed.detail : undefined;
  }

  detailsOf(l: string): string[] {
    const history = this.state.prs[num(l)]?.history ?? [];
    return history.map((t) => t.detail).filter((d): d is string => d !== undefined);
  }
}

export const play = (settings: Record<string, unknown>, rows: Row[]): TestAwareScenario =>
  new TestAwareScenario(settings).play(rows);
