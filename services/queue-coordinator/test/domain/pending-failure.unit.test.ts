import { Scenario, type Row } from "./scenario-table.js";

// B failed and waits for C, which was built on it, with A merged meanwhile.
const B_WAITS_FOR_C: Row[] = [
  ["submit A", {}, ["test A"]],
  ["submit B", {}, ["test B on A"]],
  ["submit C", {}, ["test C on AB"]],
  ["fail B", { B: "PENDING_FAILURE" }, []],
  ["pass A", {}, ["merge A"]],
  ["merged A", { B: "PENDING_FAILURE" }, []],
];

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

  it("without optimistic merging the failed PR waits for its successor, then fails with it", () => {
    new Scenario({ concurrency: 3, pendingFailureDepth: 1 }).play([
      ...B_WAITS_FOR_C,
      ["fail C", { B: "FAILED", C: "TESTING" }, ["test C"]],
    ]);
  });

  it("without optimistic merging a failed PR whose successor passed with it is tested once more in its place", () => {
    new Scenario({ concurrency: 3, pendingFailureDepth: 1 }).play([
      ...B_WAITS_FOR_C,
      // C's run held B and passed: B's failure was most likely a flake, and C's run stays valid.
      ["pass C", { B: "TESTING", C: "TESTS_PASSED" }, ["test B"]],
      ["pass B", {}, ["merge B"]],
      ["merged B", { B: "MERGED" }, ["merge C"]],
      ["merged C", { C: "MERGED" }, []],
    ]);
  });

  it("only the successors a failed PR waits for start on top of it; the rest start once it is resolved", () => {
    new Scenario({ concurrency: 4, pendingFailureDepth: 1 }).play([
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["fail A", { A: "PENDING_FAILURE", B: "TESTING" }, []],
      // A slot is free, but a run of C on top of A would rescue nothing: A waits for B only.
      ["submit C", { C: "PENDING" }, []],
      ["fail B", { A: "FAILED", B: "TESTING", C: "TESTING" }, ["test B", "test C on B"]],
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
  it("a failed batch steps aside once its successor's run ended: the line goes on, the search runs aside", () => {
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
      // E is the successor ABCD waits for (rule 13): it may start on top of the failed batch.
      ["wait 2", { E: "TESTING" }, ["test E on ABCD"]],
      // E's run ended without rescuing ABCD: ABCD steps aside and is searched there, and E
      // restarts without it instead of waiting for the search.
      ["fail E", { A: "PENDING_FAILURE", E: "TESTING" }, ["bisect AB", "bisect CD", "test E"]],
      ["pass E", {}, ["merge E"]],
      ["merged E", { E: "MERGED" }, []],
      ["fail AB", {}, ["cancel CD", "bisect A", "bisect B"]],
      ["fail B", { B: "FAILED" }, ["bisect CD"]],
      ["pass A", { A: "TESTING" }, ["test A"]],
      ["pass CD", { C: "PENDING", D: "PENDING" }, []],
      ["pass A", {}, ["merge A", "test CD on A"]],
      ["merged A", { A: "MERGED" }, []],
      ["pass CD", {}, ["merge CD"]],
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
    ]);
  });

  it("a group a bisection cleared on top of its own merging group merges from that run, ahead of later PRs", () => {
    const settings = {
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 1,
      bisectionMode: "STACKED",
    };
    new Scenario({ ...settings, concurrency: 1, bisectionConcurrency: 2 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["fail ABCD", { A: "PENDING_FAILURE" }, ["bisect AB", "bisect C on AB"]],
      ["fail AB", {}, ["cancel C", "bisect A", "bisect CD on A"]],
      ["pass A", { A: "TESTS_PASSED", B: "FAILED" }, ["merge A"]],
      ["submit E", { E: "PENDING" }, []],
      // CD passed on top of A, which is merging as planned: the run is what lands after A, so C
      // and D keep their place ahead of E (submitted after them) instead of being tested again.
      ["pass CD", { C: "TESTS_PASSED", D: "TESTS_PASSED", E: "PENDING" }, []],
      ["merged A", { A: "MERGED" }, ["merge CD"]],
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
      ["wait 2", { E: "TESTING" }, ["test E"]],
    ]);
  });
});
