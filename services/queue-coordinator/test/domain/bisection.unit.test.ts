import { expect } from "chai";
import { driveToCompletion } from "./fake-ci.js";
import { num, Scenario, type Row } from "./scenario-table.js";

describe("planner: bisection (rules 8-10)", () => {
  it("halves a failed batch, merges what passes and removes only the culprit", () => {
    new Scenario({ batch: true, batchingMinSize: 4 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["fail ABCD", { A: "PENDING_FAILURE", D: "PENDING_FAILURE" }, ["bisect AB"]],
      // ABCD failed and AB passed, so C+D on top of AB is known to fail: no run for it.
      ["pass AB", { A: "TESTS_PASSED", B: "TESTS_PASSED" }, ["bisect C on AB", "merge AB"]],
      ["fail C", { C: "FAILED", D: "PENDING_FAILURE" }, ["bisect D on AB"]],
      ["merged A", { A: "MERGED", B: "MERGED" }, []],
      ["pass D", { D: "TESTS_PASSED" }, ["merge D"]],
      ["merged D", { D: "MERGED" }, []],
    ]);
  });

  it("tells (for the metrics) which segment an earlier run's result settled, and only with reuse on", () => {
    const reusedAfterAB = (reuse: boolean) => {
      const s = new Scenario({ batch: true, batchingMinSize: 4 }, { reuseBisectionResults: reuse });
      for (const line of ["submit A", "submit B", "submit C", "submit D", "fail ABCD", "pass AB"]) s.do(line);
      return (s.last?.notices ?? []).flatMap((n) =>
        n.type === "BISECTION_RESULT_REUSED" ? [{ prs: n.prs, outcome: n.outcome }] : [],
      );
    };
    // C+D on top of AB is the combination ABCD, which the batch run already failed.
    expect(reusedAfterAB(true)).to.deep.equal([{ prs: [num("C"), num("D")], outcome: "FAILED" }]);
    expect(reusedAfterAB(false)).to.deep.equal([]);
  });

  it("ISOLATED, the default: once the line goes on without a failed batch, its halves run alone at once", () => {
    new Scenario({ batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 120, concurrency: 2 }).play([
      ...[..."ABCD"].map((l): Row => [`submit ${l}`, {}]),
      // EFGH starts late enough that its run, built on ABCD, is no witness worth waiting for (witness.ts).
      ["wait 30", {}],
      ...[..."EFG"].map((l): Row => [`submit ${l}`, {}]),
      ["submit H", {}, ["test EFGH on ABCD"]],
      // EFGH restarts without ABCD, so AB and CD can only go back into the line: each is tested on the target.
      [
        "fail ABCD",
        { A: "PENDING_FAILURE", E: "TESTING" },
        ["cancel EFGH", "bisect AB", "bisect CD", "test EFGH"],
      ],
      ["pass AB", { A: "PENDING", B: "PENDING" }, []],
      ["fail CD", { C: "PENDING_FAILURE" }, ["bisect C", "bisect D"]],
      // A PR fails on a failed run of its own, never on one it shared with a PR found good since.
      ["fail C", { C: "FAILED", D: "PENDING_FAILURE" }, []],
      ["pass D", { D: "TESTING", A: "TESTING", B: "TESTING" }, ["test DAB on EFGH"]],
    ]);
  });

  it("marks the culprit's failure as decided by the bisection", () => {
    const s = new Scenario({ batch: true, batchingMinSize: 2 });
    // AB failed and A passed: B is the culprit only once a run of its own fails (AB may have been a flake).
    for (const line of ["submit A", "submit B", "fail AB", "pass A", "fail B"]) s.do(line);
    const failed = s.last?.notices.find((n) => n.type === "PR_STATE_CHANGED" && n.to === "FAILED");
    expect(failed).to.deep.include({ pr: num("B"), isBisection: true });
  });

  it("finds the one bad PR of ABCDEF with fewer runs when results are reused", () => {
    const runsFor = (reuse: boolean): { runs: number; failed: string[] } => {
      const s = new Scenario({ batch: true, batchingMinSize: 6 }, { reuseBisectionResults: reuse });
      for (const l of "ABCDEF") s.do(`submit ${l}`);
      driveToCompletion(s, new Set([num("D")]));
      const failed = [..."ABCDEF"].filter((l) => s.stateOf(l) === "FAILED");
      expect([..."ABCDEF"].filter((l) => s.stateOf(l) === "MERGED")).to.deep.equal([..."ABCEF"]);
      return { runs: s.runsStarted() - s.mainRunsStarted(), failed };
    };
    const withReuse = runsFor(true);
    const without = runsFor(false);
    expect(withReuse.failed).to.deep.equal(["D"]);
    expect(without.failed).to.deep.equal(["D"]);
    // Bisection runs: ABC, ABCDE, ABCD, ABCE, ABCEF; without reuse ABCDEF runs again first.
    expect(without.runs).to.equal(6);
    expect(withReuse.runs).to.equal(5);
  });

  it("runs bisection steps in parallel within the bisection concurrency, apart from the main limit", () => {
    const s = new Scenario({
      bisectionMode: "STACKED",
      batch: true,
      batchingMinSize: 4,
      concurrency: 1,
      bisectionConcurrency: 3,
    });
    s.play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["submit E", {}],
      ["submit F", {}],
      ["submit G", {}],
      ["submit H", {}],
      // The failed batch steps out of the line: EFGH is tested without it, not on top of a known failure.
      // The failed batch steps out of the line: EFGH is tested without it, not on top of a known failure.
      ["fail ABCD", {}, ["bisect AB", "bisect C on AB", "test EFGH"]],
    ]);
  });

  it("a PR a bisection cleared goes back untested when its next batch fails, and the search covers the others", () => {
    const s = new Scenario({ bisectionMode: "STACKED", batch: true, batchingMinSize: 2, concurrency: 3 });
    s.play([
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["submit C", {}],
      ["submit D", {}, ["test CD on AB"]],
      ["fail AB", { A: "PENDING_FAILURE", C: "TESTING" }, ["cancel CD", "bisect A", "test CD"]],
      // CD started without AB: A passed, but goes back into line to be tested again (cleared once).
      ["pass A", { A: "PENDING" }, ["bisect B on A"]],
      ["submit E", {}, ["test AE on CD"]],
      ["fail B", { B: "FAILED" }, []],
      ["submit F", {}],
      ["submit G", {}, ["test FG on CDAE"]],
      ["fail AE", { A: "PENDING_FAILURE", E: "PENDING_FAILURE", F: "TESTING" }, []],
      ["pass CD", {}, ["cancel FG", "merge CD", "test FG on CD"]],
      // AE fails with nothing ahead and FG started without it: A goes straight back into line,
      // untested, and the search looks at E alone.
      ["merged C", { C: "MERGED", A: "PENDING", E: "PENDING_FAILURE" }, ["bisect E"]],
      // E passes alone but does not merge from the search's run, ahead of A: it goes back into line
      // too (ahead of A, as PRs a bisection cleared do) and is tested again with A.
      ["pass E", { E: "TESTING", A: "TESTING" }, ["test EA on FG"]],
      ["submit I", {}],
      ["submit J", {}, ["test IJ on FGEA"]],
      ["fail EA", { A: "PENDING_FAILURE", E: "PENDING_FAILURE" }, []],
      ["pass FG", {}, ["cancel IJ", "merge FG", "test IJ on FG"]],
      // Once per PR: A has used its clearance, so this search looks at A, and E (cleared since)
      // goes back untested in its turn.
      ["merged F", { F: "MERGED", A: "PENDING_FAILURE", E: "PENDING" }, ["bisect A"]],
      // A was the culprit after all: it fails on its second failed run. E, back in line after a run and
      // with nothing else waiting or searched, starts in a free slot instead of idling out a batch wait.
      ["fail A", { A: "FAILED", E: "TESTING" }, ["test E on IJ"]],
      ["pass IJ", {}, ["merge IJ"]],
      ["merged I", { I: "MERGED", J: "MERGED" }, []],
      ["pass E", {}, ["merge E"]],
      ["merged E", { E: "MERGED" }, []],
    ]);
    // Each PR's history says why it went back into line without a run of its own: once each.
    const sentBack = (l: string) =>
      s.changesOf(l).filter((c) => c === "PENDING CLEARED_BY_EARLIER_BISECTION");
    expect(sentBack("A"), "A sent back untested").to.have.length(1);
    expect(sentBack("E"), "E sent back untested").to.have.length(1);
  });

  it("a merge conflict removes the conflicting PR without bisecting", () => {
    new Scenario({ batch: true, batchingMinSize: 3 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}, ["test ABC"]],
      ["conflict ABC B", { B: "FAILED", A: "TESTING", C: "TESTING" }, ["test AC"]],
    ]);
  });
});
