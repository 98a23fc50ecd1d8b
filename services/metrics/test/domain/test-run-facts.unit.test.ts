import { expect } from "chai";
import { applyTestRunFact, type ActiveTestRun, type TestRunFact } from "../../src/domain/test-run-facts.js";
import { MINUTE, widgets } from "./fixtures.js";

const fact = (type: TestRunFact["type"], extra: Partial<TestRunFact> = {}): TestRunFact => ({
  eventId: `run-${type}`,
  type,
  queue: widgets,
  runId: "r1",
  kind: "main",
  testedPrs: [],
  outcome: null,
  startedAt: null,
  finishedAt: null,
  at: 0,
  ...extra,
});

const kinds = (step: ReturnType<typeof applyTestRunFact>) =>
  step.observations.map((o) => `${o.kind}${o.label ? `(${o.label})` : ""}[${o.queueType}]=${o.value}`);

describe("test-run facts", () => {
  it("takes a slot at the start and records the batch of PRs under test", () => {
    const step = applyTestRunFact(undefined, fact("STARTED", { testedPrs: [4, 5, 6], startedAt: 0 }));
    expect(step.run).to.deep.equal({ runId: "r1", queue: widgets, kind: "main", startedAt: 0 });
    expect(kinds(step)).to.deep.equal(["run_started[main]=1", "batch_size[main]=3"]);
  });

  it("frees the slot when the run finishes and measures it", () => {
    const active: ActiveTestRun = { runId: "r1", queue: widgets, kind: "bisection", startedAt: 0 };
    const step = applyTestRunFact(
      active,
      fact("FINISHED", { outcome: "timed_out", startedAt: 0, finishedAt: 30 * MINUTE, at: 30 * MINUTE }),
    );
    expect(step.run).to.equal(null);
    // The kind known from the start wins over the finishing event's.
    expect(kinds(step)).to.deep.equal([
      "run_finished(timed_out)[bisection]=1",
      "run_duration[bisection]=1800",
    ]);
  });

  it("counts a cancelled run without a duration, of the kind it started as", () => {
    const active: ActiveTestRun = { runId: "r1", queue: widgets, kind: "bisection", startedAt: 0 };
    const step = applyTestRunFact(active, fact("CANCELLED"));
    expect(step.run).to.equal(null);
    expect(kinds(step)).to.deep.equal(["run_finished(cancelled)[bisection]=1"]);
  });

  it("counts a run's end once, and only after its start: finished never exceeds started", () => {
    const started = applyTestRunFact(undefined, fact("STARTED", { kind: "bisection", startedAt: 0 }));
    const cancelled = applyTestRunFact(started.run ?? undefined, fact("CANCELLED", { kind: "bisection" }));
    // The run's result crossed its cancellation on the bus: the run is over already.
    const lateResult = applyTestRunFact(
      cancelled.run ?? undefined,
      fact("FINISHED", { kind: "bisection", outcome: "failed", startedAt: 0, finishedAt: MINUTE }),
    );
    // A cancellation of a run whose start was never seen.
    const unseen = applyTestRunFact(undefined, fact("CANCELLED", { runId: "r2", kind: "bisection" }));
    const counted = [started, cancelled, lateResult, unseen].flatMap(kinds);
    expect(counted).to.deep.equal(["run_started[bisection]=1", "run_finished(cancelled)[bisection]=1"]);
    expect(lateResult.run).to.equal(undefined);
    expect(unseen.run).to.equal(undefined);
  });

  it("counts a reused bisection result and leaves the slots alone", () => {
    const step = applyTestRunFact(undefined, fact("REUSED", { kind: "bisection", outcome: "failed" }));
    expect(step.run).to.equal(undefined);
    expect(kinds(step)).to.deep.equal(["bisection_reuse[bisection]=1"]);
  });
});
