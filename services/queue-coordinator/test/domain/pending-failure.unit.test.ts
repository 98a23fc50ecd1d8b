import { Scenario } from "./scenario-table.js";

describe("planner: pending failure depth and optimistic merging (rules 13-14)", () => {
  it("anti-flake: B fails, C (containing B) passes, so A, B and C merge", () => {
    new Scenario({ concurrency: 3, pendingFailureDepth: 1, canOptimisticallyMerge: true }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["submit C", {}, ["test C on AB"]],
      ["fail B", { B: "PENDING_FAILURE", C: "TESTING" }, []],
      ["pass C", { A: "TESTS_PASSED", B: "TESTS_PASSED", C: "TESTS_PASSED" }, ["cancel A", "merge* ABC"]],
      ["merged A", { A: "MERGED", B: "MERGED", C: "MERGED" }, []],
    ]);
  });

  it("without optimistic merging the failed PR waits for its successor, then fails", () => {
    new Scenario({ concurrency: 3, pendingFailureDepth: 1 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["submit C", {}, ["test C on AB"]],
      ["fail B", { B: "PENDING_FAILURE" }, []],
      ["pass A", {}, ["merge A"]],
      ["merged A", { B: "PENDING_FAILURE" }, []],
      ["pass C", { B: "FAILED", C: "TESTING" }, ["test C"]],
    ]);
  });

  it("a failed PR always waits for its predecessors; their removal restarts it", () => {
    new Scenario({ concurrency: 2 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["fail B", { B: "PENDING_FAILURE" }, []],
      ["fail A", { A: "FAILED", B: "TESTING" }, ["test B"]],
    ]);
  });

  it("a newly submitted PR behind the failed one counts as a successor", () => {
    new Scenario({ concurrency: 2, pendingFailureDepth: 1, canOptimisticallyMerge: true }).play([
      ["submit X", {}, ["test X"]],
      ["submit A", {}, ["test A on X"]],
      ["fail A", { A: "PENDING_FAILURE" }, []],
      ["submit B", {}, ["test B on XA"]],
      ["pass X", {}, ["merge X"]],
      ["merged X", { A: "PENDING_FAILURE" }, []],
      ["pass B", {}, ["merge* AB"]],
    ]);
  });

  it("with PFD 0 a single failed PR fails as soon as nothing is ahead of it", () => {
    new Scenario({ concurrency: 2 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["fail A", { A: "FAILED", B: "TESTING" }, ["cancel B", "test B"]],
    ]);
  });

  it("a restart request retries a PR in pending failure without touching the others", () => {
    new Scenario({ concurrency: 2, pendingFailureDepth: 1 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["fail A", { A: "PENDING_FAILURE" }, []],
      ["restart A", { A: "TESTING", B: "TESTING" }, ["test A"]],
    ]);
  });
  it("a group a bisection cleared on top of its own merging group merges from that run, ahead of later PRs", () => {
    const settings = {
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 1,
      pendingFailureDepth: 1,
    };
    new Scenario({ ...settings, concurrency: 1, bisectionConcurrency: 2 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["submit E", {}, []],
      ["fail ABCD", { A: "PENDING_FAILURE", E: "PENDING" }, []],
      ["wait 2", { E: "TESTING" }, ["test E on ABCD"]],
      ["fail E", {}, ["bisect AB", "bisect C on AB"]],
      ["fail AB", {}, ["cancel C", "bisect A", "bisect CD on A"]],
      ["pass A", { A: "TESTS_PASSED", B: "FAILED" }, ["merge A", "test E on ACD"]],
      // CD passed on top of A, which is merging as planned: the run is what lands after A, so C
      // and D keep their place ahead of E (submitted after them) instead of being tested again.
      ["pass CD", { C: "TESTS_PASSED", D: "TESTS_PASSED", E: "TESTING" }, []],
      ["merged A", { A: "MERGED" }, ["merge CD"]],
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
      ["pass E", {}, ["merge E"]],
      ["merged E", { E: "MERGED" }, []],
    ]);
  });
});
