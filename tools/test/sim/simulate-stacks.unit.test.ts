import { expect } from "chai";
import { parseWorkloadFile, runSimulation } from "@mainline/sim";

const pr = (number: number, extra: Record<string, unknown> = {}) => ({
  number,
  arrivesAtMinute: number,
  bad: false,
  testMinutes: 30,
  ...extra,
});

/** Issue 28: a workload PR may be stacked on another (`"stackedOn"`); the simulator applies the same planner. */
describe("mainline simulate: stacked pull requests", () => {
  const run = (prs: unknown[], settings: Record<string, unknown> = { concurrency: 2 }) => {
    const { workload } = parseWorkloadFile(JSON.stringify({ name: "stacks", settings, prs }), "stacks");
    return runSimulation({ settings, workload });
  };

  it("the top of a stack arriving first brings the two below: one run tests the three, they merge in order", () => {
    const report = run([
      pr(1, { arrivesAtMinute: 5 }),
      pr(2, { arrivesAtMinute: 5, stackedOn: 1 }),
      pr(3, { arrivesAtMinute: 0, stackedOn: 2 }),
    ]);
    expect(report).to.include({ merged: 3, failed: 0, stuck: 0 });
    expect(report.mainRuns).to.equal(1);
    expect(report.mergeOrder).to.deep.equal([1, 2, 3]);
  });

  it("a stack arriving bottom first, one PR a minute, still merges in stack order", () => {
    const report = run([pr(1), pr(2, { stackedOn: 1 }), pr(3, { stackedOn: 2 }), pr(4)]);
    expect(report).to.include({ merged: 4, failed: 0, stuck: 0 });
    expect(report.mergeOrder.filter((n) => n <= 3)).to.deep.equal([1, 2, 3]);
  });

  it("a bad middle PR fails with the top, the bottom merges", () => {
    const report = run([
      pr(1, { arrivesAtMinute: 0 }),
      pr(2, { arrivesAtMinute: 0, stackedOn: 1, bad: true }),
      pr(3, { arrivesAtMinute: 0, stackedOn: 2 }),
    ]);
    expect(report.finalStates).to.deep.equal({ 1: "MERGED", 2: "FAILED", 3: "FAILED" });
    expect(report).to.include({ badMerged: 0 });
  });

  it("refuses a stackedOn that names no PR of the file or loops, naming the field", () => {
    expect(() => run([pr(1, { stackedOn: 7 })])).to.throw(/prs\[0\]\.stackedOn.*7 is not one/);
    expect(() => run([pr(1, { stackedOn: 2 }), pr(2, { stackedOn: 1 })])).to.throw(
      /prs\[0\]\.stackedOn.*loop/,
    );
    expect(() => run([pr(1, { stackedOn: 1 })])).to.throw(/prs\[0\]\.stackedOn.*another PR's number/);
    expect(() => run([pr(1, { stackedOn: "one" })])).to.throw(/prs\[0\]\.stackedOn/);
  });
});
