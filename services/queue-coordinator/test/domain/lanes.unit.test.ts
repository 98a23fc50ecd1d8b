import { expect } from "chai";
import { batchPlacement } from "../../src/domain/index.js";
import { num, type Row, Scenario } from "./scenario-table.js";

describe("planner: parallel lanes", () => {
  it("C[frontend,backend] waits for A[frontend] and B[backend]; D[docs] waits for nothing", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 4 }).play([
      ["submit A", { A: "NOT_READY" }, []],
      ["targets A frontend", { A: "TESTING" }, ["test A"]],
      ["submit B", {}, []],
      ["targets B backend", { B: "TESTING" }, ["test B"]],
      ["submit C", {}, []],
      ["targets C frontend,backend", { C: "TESTING" }, ["test C on AB"]],
      ["submit D", {}, []],
      ["targets D docs", { D: "TESTING" }, ["test D"]],
      ["pass D", { D: "TESTS_PASSED" }, ["merge D"]],
      ["pass C", { C: "TESTS_PASSED" }, []],
      ["merged D", { D: "MERGED" }, []],
      ["pass A", {}, ["merge A"]],
      ["pass B", {}, ["merge B"]],
      ["merged A", { A: "MERGED" }, []],
      ["merged B", { B: "MERGED" }, ["merge C"]],
      ["merged C", { C: "MERGED" }, []],
    ]);
  });

  it("a failure in one lane restarts only the PRs that contained it", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 4 }).play([
      ["submit A", {}],
      ["targets A frontend", {}, ["test A"]],
      ["submit B", {}],
      ["targets B backend", {}, ["test B"]],
      ["submit C", {}],
      ["targets C frontend,backend", {}, ["test C on AB"]],
      ["fail A", { A: "FAILED", B: "TESTING", C: "TESTING" }, ["cancel C", "test C on B"]],
    ]);
  });

  it("an ALL PR between two lanes is a prerequisite of every later PR", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 5 }).play([
      ["submit A", {}],
      ["targets A frontend", {}, ["test A"]],
      ["submit B", {}],
      ["targets B backend", {}, ["test B"]],
      ["submit E", {}],
      ["targets E ALL", {}, ["test E on AB"]],
      ["submit F", {}],
      ["targets F frontend", {}, ["test F on ABE"]],
      ["submit G", {}],
      ["targets G docs", {}, ["test G on ABE"]],
    ]);
  });

  it("a PR with an empty target list depends on nothing, and nothing depends on it", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 3 }).play([
      ["submit A", {}],
      ["targets A frontend", {}, ["test A"]],
      ["submit B", {}],
      ["targets B", {}, ["test B"]],
      ["submit C", {}],
      ["targets C frontend", {}, ["test C on A"]],
    ]);
  });

  it("stays NOT_READY until targets are known for the current head sha", () => {
    const s = new Scenario({ mode: "PARALLEL" });
    s.play([["submit A", { A: "NOT_READY" }]]);
    s.apply({ type: "IMPACTED_TARGETS_SET", pr: 1, targets: { sha: "some-old-sha", targets: ["x"] } });
    expect(s.stateOf("A")).to.equal("NOT_READY");
    s.play([
      ["targets A x", { A: "TESTING" }, ["test A"]],
      ["push A", { A: "NOT_READY" }, ["cancel A"]],
      ["targets A x", { A: "TESTING" }, ["test A"]],
    ]);
  });

  it("disjoint PRs never batch together, overlapping ones do", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 4, batch: true, batchingMinSize: 2 }).play([
      ["submit A", {}],
      ["targets A frontend", { A: "PENDING" }, []],
      ["submit B", {}],
      ["targets B backend", { B: "PENDING" }, []],
      ["submit C", {}],
      ["targets C frontend", { A: "TESTING", C: "TESTING" }, ["test AC"]],
      ["wait 5", { B: "TESTING" }, ["test B"]],
    ]);
  });
});

describe("planner: parallel lanes under load (issue 27: lanes never cost more than one lane)", () => {
  it("a PR whose prerequisites' batches are closed joins the open batch of its lane behind them, a slot free or not", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 3, batch: true, batchingMinSize: 3 }).play([
      ["submit A", {}],
      ["targets A x", { A: "PENDING" }, []],
      ["wait 5", { A: "TESTING" }, ["test A"]],
      ["submit B", {}],
      ["targets B x,y", { B: "PENDING" }, []],
      ["submit C", {}],
      ["targets C y", {}, []],
      ["submit D", {}],
      ["targets D x", { B: "TESTING", C: "TESTING", D: "TESTING" }, ["test BCD on A"]],
      ["submit E", {}],
      ["targets E y", { E: "PENDING" }, []],
      ["submit G", {}],
      // G's prerequisite D is in a batch under test; E's batch is built on it too. One run for both, not two of
      // one PR each, although a slot is free.
      ["targets G x", { G: "PENDING" }, []],
      ["wait 5", { E: "TESTING", G: "TESTING" }, ["test EG on ABCD"]],
    ]);
  });

  it("a PR that touches nothing in line never joins another lane's batch, even with every slot busy (rule 6)", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 1, batch: true, batchingMinSize: 3 }).play([
      ["submit A", {}],
      ["targets A x", { A: "PENDING" }, []],
      ["wait 5", { A: "TESTING" }, ["test A"]],
      ["submit B", {}],
      ["targets B y", { B: "PENDING" }, []],
      ["submit F", {}],
      ["targets F z", { F: "PENDING" }, []],
      ["wait 5", { B: "PENDING", F: "PENDING" }, []],
      ["pass A", { A: "TESTS_PASSED", B: "TESTING", F: "PENDING" }, ["merge A", "test B"]],
      ["merged A", { A: "MERGED" }, []],
      ["pass B", { B: "TESTS_PASSED", F: "TESTING" }, ["merge B", "test F"]],
    ]);
  });

  it("nothing starts on top of a failed batch still in line in its lane", () => {
    new Scenario({ mode: "PARALLEL", concurrency: 2 }).play([
      ["submit A", {}],
      ["targets A frontend", {}, ["test A"]],
      ["submit B", {}],
      ["targets B frontend", {}, ["test B on A"]],
      ["submit C", {}],
      ["targets C frontend", { C: "PENDING" }, []],
      // B's failure may be A's: B waits in line for A's result, and a run of C on top of B would be lost either way.
      ["fail B", { B: "PENDING_FAILURE", C: "PENDING" }, []],
    ]);
  });

  it("a bisection whose good groups can only go back into the line keeps one combination in flight", () => {
    const rows: Row[] = [];
    for (const l of "ABCDEFGHI") rows.push([`submit ${l}`, {}], [`targets ${l} frontend`, {}]);
    new Scenario({
      bisectionMode: "STACKED",
      mode: "PARALLEL",
      concurrency: 2,
      batch: true,
      batchingMinSize: 8,
      bisectionConcurrency: 4,
    })
      .play(rows)
      .play([
        ["wait 5", {}, ["test I on ABCDEFGH"]],
        ["fail ABCDEFGH", {}, ["cancel I", "bisect ABCD", "bisect EF on ABCD", "test I"]],
        // I started without the failed batch: ABCD can only go back into line behind it, and the search only has
        // to name the culprit in EFGH. Its run of EF is in flight; G on top of it would be lost when EF fails.
        ["pass ABCD", { A: "TESTING", I: "TESTING" }, ["test ABCD on I"]],
        ["fail EF", {}, ["bisect E on ABCD"]],
      ]);
  });
});

describe("getQueue's batches and lanes (batchPlacement)", () => {
  it("names each queued PR's batch, its status and its lane, the waiting batches too", () => {
    const s = new Scenario({ mode: "PARALLEL", concurrency: 1 }).play([
      ["submit A", {}],
      ["targets A frontend", { A: "TESTING" }, ["test A"]],
      ["submit B", {}],
      ["targets B backend", { B: "PENDING" }, []],
      ["submit C", {}],
      ["targets C frontend", { C: "PENDING" }, []],
      ["submit D", { D: "NOT_READY" }],
    ]);
    const placed = batchPlacement(s.state);
    const a = placed.get(num("A"))!;
    const b = placed.get(num("B"))!;
    const c = placed.get(num("C"))!;
    expect([a.batchStatus, b.batchStatus, c.batchStatus]).to.deep.equal(["TESTING", "QUEUED", "QUEUED"]);
    expect(new Set([a.batchId, b.batchId, c.batchId]).size, "three batches").to.equal(3);
    // C shares frontend with A: it runs in A's lane; B touches nothing of theirs, so it has a lane of its own.
    expect(c.lane).to.equal(a.lane);
    expect(b.lane).to.not.equal(a.lane);
    expect(placed.has(num("D")), "a PR not ready is in no batch").to.equal(false);
  });

  it("puts every batch in one lane in SINGLE mode", () => {
    const s = new Scenario({ mode: "SINGLE", concurrency: 1 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
    ]);
    const lanes = new Set([...batchPlacement(s.state).values()].map((p) => p.lane));
    expect(batchPlacement(s.state).size).to.equal(3);
    expect(lanes.size).to.equal(1);
  });
});
