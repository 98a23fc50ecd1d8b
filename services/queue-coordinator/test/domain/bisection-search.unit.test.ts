import { expect } from "chai";
import {
  advanceBisection,
  recordBisectionResult,
  startBisection,
  type Bisection,
} from "../../src/domain/bisection.js";

const record = (
  b: Bisection,
  prs: number[],
  base: number[],
  outcome: "PASSED" | "FAILED",
  failedTests?: string[],
): Bisection =>
  recordBisectionResult(b, [...base, ...prs].join(","), {
    outcome,
    runId: `run-${prs.join("")}`,
    reason: null,
    prs,
    ...(failedTests === undefined ? {} : { failedTests }),
  });

describe("planner: the two bisection searches (queue setting bisectionMode)", () => {
  const needed = (b: Bisection) => advanceBisection(b, 4).needed.map((n) => ({ prs: n.prs, base: n.base }));

  it("STACKED: stacks each segment on the ones ahead, so a passing run can merge what it tested", () => {
    const b = startBisection([1, 2, 3, 4], "run-0", "TESTS_FAILED", true);
    expect(needed(b)).to.deep.equal([
      { prs: [1, 2], base: [] },
      // 3+4 on top of 1+2 is the failed batch itself, so its first half is tested on top of 1+2 at once.
      { prs: [3], base: [1, 2] },
    ]);
  });

  it("ISOLATED (independent): tests every open segment on the target alone, and a culprit only by a run of its own", () => {
    let b: Bisection = { ...startBisection([1, 2, 3, 4], "run-0", "TESTS_FAILED", true), independent: true };
    expect(needed(b)).to.deep.equal([
      { prs: [1, 2], base: [] },
      { prs: [3, 4], base: [] },
    ]);
    // 3+4 fails before 1+2 has an answer: it splits at once, whatever stands ahead of it.
    b = advanceBisection(record(b, [3, 4], [], "FAILED"), 4).bisection;
    expect(needed(b)).to.deep.equal([
      { prs: [1, 2], base: [] },
      { prs: [3], base: [] },
      { prs: [4], base: [] },
    ]);
    const afterPass = advanceBisection(record(b, [1, 2], [], "PASSED"), 4);
    expect(afterPass.confirmed).to.deep.equal([{ prs: [1, 2], base: [], runId: "run-12" }]);
    b = afterPass.bisection;
    const afterThree = advanceBisection(record(b, [3], [], "FAILED"), 4);
    expect(afterThree.culprits.map((c) => c.pr)).to.deep.equal([3]);
    // 3+4 failed and 3 is a culprit: 4 still gets a run of its own (that run, not 3+4's, may blame it).
    expect(afterThree.needed.map((n) => n.prs)).to.deep.equal([[4]]);
    const last = advanceBisection(record(afterThree.bisection, [4], [], "PASSED"), 4);
    expect(last.confirmed.map((c) => c.prs)).to.deep.equal([[4]]);
    expect(last.finished).to.equal(true);
  });

  it("ISOLATED (independent): a lone member of the failed batch is tested once more before it fails", () => {
    const b: Bisection = { ...startBisection([7], "run-0", "TESTS_FAILED", true), independent: true };
    expect(needed(b)).to.deep.equal([{ prs: [7], base: [] }]);
    expect(advanceBisection(record(b, [7], [], "FAILED"), 4).culprits.map((c) => c.pr)).to.deep.equal([7]);
  });

  describe("ISOLATED (independent), with the failed tests of each run (issue 26)", () => {
    const failedOn = (tests: string[]): Bisection => ({
      ...startBisection([1, 2, 3, 4], "run-0", "TESTS_FAILED", true, tests),
      independent: true,
    });

    it("tests the first half first: the second waits for it", () => {
      expect(needed(failedOn(["t2"]))).to.deep.equal([{ prs: [1, 2], base: [] }]);
    });

    it("sends the second half back untested when the first half failed every test the batch failed", () => {
      const b = record(failedOn(["t2"]), [1, 2], [], "FAILED", ["t2"]);
      const progress = advanceBisection(b, 4);
      expect(progress.released).to.deep.equal([{ prs: [3, 4], runId: "run-12", by: [1, 2] }]);
      // 1+2 failed the batch's test: a pass of 1 names 2, so 2 waits for 1's run (see the scenarios below).
      expect(progress.needed.map((n) => n.prs)).to.deep.equal([[1]]);
      expect(progress.confirmed).to.deep.equal([]);
    });

    it("tests the second half when the first half failed only some of the batch's tests (a second culprit)", () => {
      const b = record(failedOn(["t2", "t4"]), [1, 2], [], "FAILED", ["t2"]);
      const progress = advanceBisection(b, 4);
      expect(progress.released).to.deep.equal([]);
      expect(progress.needed.map((n) => n.prs)).to.deep.equal([[1], [3, 4]]);
    });

    it("splits the second half without a run when the first half passed: the failure is in it", () => {
      const progress = advanceBisection(record(failedOn(["t4"]), [1, 2], [], "PASSED"), 4);
      expect(progress.confirmed.map((c) => c.prs)).to.deep.equal([[1, 2]]);
      expect(progress.needed.map((n) => n.prs)).to.deep.equal([[3], [4]]);
      // A split is never a verdict: 4 fails only on a run of its own.
      expect(progress.culprits).to.deep.equal([]);
    });

    it("sends a lone member back once the other's own run failed the batch's tests, its run in flight or not", () => {
      let b: Bisection = {
        ...startBisection([6, 7], "run-0", "TESTS_FAILED", true, ["t6"]),
        independent: true,
      };
      expect(needed(b)).to.deep.equal([
        { prs: [6], base: [] },
        { prs: [7], base: [] },
      ]);
      b = { ...b, running: { "6": "run-6", "7": "run-7" } };
      const progress = advanceBisection(record(b, [6], [], "FAILED", ["t6"]), 4);
      expect(progress.culprits.map((c) => c.pr)).to.deep.equal([6]);
      expect(progress.released).to.deep.equal([{ prs: [7], runId: "run-6", by: [6] }]);
      expect(progress.finished).to.equal(true);
    });

    it("at every level: inside a half that failed, its second quarter waits for the first", () => {
      let b: Bisection = {
        ...startBisection([1, 2, 3, 4, 5, 6, 7, 8], "run-0", "TESTS_FAILED", true, ["t3"]),
        independent: true,
      };
      expect(needed(b).map((n) => n.prs)).to.deep.equal([[1, 2, 3, 4]]);
      const progress = advanceBisection(record(b, [1, 2, 3, 4], [], "FAILED", ["t3"]), 4);
      expect(progress.released.map((r) => r.prs)).to.deep.equal([[5, 6, 7, 8]]);
      b = progress.bisection;
      // 1+2+3+4's failed run held 3+4 too, so it is not 1+2's run of its own: 3+4 waits for one.
      expect(needed(b).map((n) => n.prs)).to.deep.equal([[1, 2]]);
      // 3+4 splits without a run; 1+2+3+4 failed the batch's test on a run of its own, so 4 waits for 3.
      expect(advanceBisection(record(b, [1, 2], [], "PASSED"), 4).needed.map((n) => n.prs)).to.deep.equal([
        [3],
      ]);
    });

    describe("a pair whose own run failed a test the batch failed", () => {
      const pairFailed = (): Bisection =>
        advanceBisection(record(failedOn(["t2"]), [1, 2], [], "FAILED", ["t2"]), 4).bisection;

      it("tests its first PR alone, the second waiting", () => {
        expect(needed(pairFailed()).map((n) => n.prs)).to.deep.equal([[1]]);
      });

      it("names the second as the culprit, with no run of its own, once the first passed alone", () => {
        const progress = advanceBisection(record(pairFailed(), [1], [], "PASSED"), 4);
        expect(progress.confirmed.map((c) => c.prs)).to.deep.equal([[1]]);
        expect(progress.culprits).to.deep.equal([
          {
            pr: 2,
            reason: "TESTS_FAILED",
            runId: "run-12",
            detail: "its run with #1 failed a test the batch failed, and #1 passed on its own",
          },
        ]);
        expect(progress.needed).to.deep.equal([]);
        expect(progress.finished).to.equal(true);
      });

      it("sends the second back untested when the first failed the same test alone", () => {
        const progress = advanceBisection(record(pairFailed(), [1], [], "FAILED", ["t2"]), 4);
        expect(progress.culprits.map((c) => c.pr)).to.deep.equal([1]);
        expect(progress.released).to.deep.equal([{ prs: [2], runId: "run-1", by: [1] }]);
        expect(progress.finished).to.equal(true);
      });

      it("tests the second alone once the first is a culprit of another test: it may hold a culprit of its own", () => {
        // 1 failed another test than the pair: a likely flake, so 1 runs again and 2 still waits.
        const once = advanceBisection(record(pairFailed(), [1], [], "FAILED", ["t1"]), 4);
        expect(once.culprits).to.deep.equal([]);
        expect(once.needed.map((n) => n.prs)).to.deep.equal([[1]]);
        const twice = advanceBisection(record(once.bisection, [1], [], "FAILED", ["t1"]), 4);
        expect(twice.culprits.map((c) => c.pr)).to.deep.equal([1]);
        expect(twice.needed.map((n) => n.prs)).to.deep.equal([[2]]);
      });

      it("names nobody without its own run when only the batch's run failed (that one may be a flake)", () => {
        const progress = advanceBisection(record(failedOn(["t4"]), [1, 2], [], "PASSED"), 4);
        expect(progress.needed.map((n) => n.prs)).to.deep.equal([[3], [4]]);
        const afterThree = advanceBisection(record(progress.bisection, [3], [], "PASSED"), 4);
        expect(afterThree.culprits).to.deep.equal([]);
        expect(afterThree.needed.map((n) => n.prs)).to.deep.equal([[4]]);
      });
    });

    it("runs a lone PR once more when its run failed none of the tests the batch failed (a flake), then believes it", () => {
      let b = record(failedOn(["t2"]), [1, 2], [], "FAILED", ["t2"]);
      b = advanceBisection(b, 4).bisection;
      // 1 failed another test than the batch did: a bad PR fails its tests wherever it runs, so 1 runs again.
      const set = advanceBisection(record(b, [1], [], "FAILED", ["flaky"]), 4);
      expect(set.culprits).to.deep.equal([]);
      expect(set.needed.map((n) => n.prs)).to.deep.include([1]);
      const again = advanceBisection(record(set.bisection, [1], [], "FAILED", ["flaky-2"]), 4);
      expect(again.culprits.map((c) => c.pr)).to.deep.equal([1]);
    });

    it("believes a lone PR's failure at once when it shares a test with the batch's", () => {
      let b = record(failedOn(["t2"]), [1, 2], [], "FAILED", ["t2"]);
      b = advanceBisection(b, 4).bisection;
      const progress = advanceBisection(record(b, [2], [], "FAILED", ["t2", "other"]), 4);
      expect(progress.culprits.map((c) => c.pr)).to.deep.equal([2]);
    });

    it("without the batch's failed tests, tests both halves at once and sends nothing back untested", () => {
      const b = failedOn([]);
      expect(needed(b).map((n) => n.prs)).to.deep.equal([
        [1, 2],
        [3, 4],
      ]);
      const progress = advanceBisection(record(b, [1, 2], [], "FAILED", ["t2"]), 4);
      expect(progress.released).to.deep.equal([]);
    });
  });
});
