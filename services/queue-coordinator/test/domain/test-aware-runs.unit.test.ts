import { expect } from "chai";
import { runTesting } from "../../src/domain/index.js";
import { play, type Row } from "./test-aware-scenario.js";

describe("planner: a failed run decided by its tests (issue 26)", () => {
  it("a run failing only on quarantined tests counts as passed and its PRs merge, saying what was ignored", () => {
    const s = play({ concurrency: 1 }, [
      ["submit A", {}, ["test A"]],
      ["fail-tests A q1,q2", { A: "TESTS_PASSED" }, ["merge A"]],
    ]);
    expect(s.detailsOf("A")).to.deep.equal(["passed; failures ignored: quarantined tests q1, q2"]);
    s.play([["merged A", { A: "MERGED" }, []]]);
  });

  it("a quarantined failure beside a real one fails the PR as today", () => {
    play({ concurrency: 1 }, [
      ["submit A", {}, ["test A"]],
      ["fail-tests A q1,r1", { A: "FAILED" }, []],
    ]);
  });

  it("without an answer from flaky-analytics the run fails as today", () => {
    play({ concurrency: 1 }, [
      ["submit A", {}, ["test A"]],
      ["fail-blind A q1", { A: "FAILED" }, []],
    ]);
  });

  it("with the setting off, quarantine is not honoured", () => {
    play({ concurrency: 1, ignoreQuarantinedTests: false, retryKnownFlakyTests: false }, [
      ["submit A", {}, ["test A"]],
      ["fail-tests A q1", { A: "FAILED" }, []],
    ]);
  });

  it("a known flaky failure is retried once in place, and the PR merges when the retry passes", () => {
    const s = play({ concurrency: 2 }, [
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      // B's run, built on A, goes on: it stays valid if A's retry passes.
      ["fail-tests A f1", { A: "TESTING", B: "TESTING" }, ["test A"]],
      ["pass A", { A: "TESTS_PASSED" }, ["merge A"]],
    ]);
    expect(s.changesOf("A")).to.include("PENDING KNOWN_FLAKY_TEST_RETRIED");
    expect(s.detailsOf("A")).to.deep.equal([
      "known flaky tests failed: f1; retrying once in place",
      "retry after known flaky tests f1 failed: passed",
    ]);
    s.play([
      ["merged A", { A: "MERGED" }, []],
      ["pass B", { B: "TESTS_PASSED" }, ["merge B"]],
    ]);
  });

  it("a flaky test failing the retry too is not retried a second time", () => {
    const s = play({ concurrency: 1 }, [
      ["submit A", {}, ["test A"]],
      ["fail-tests A f1", { A: "TESTING" }, ["test A"]],
      ["fail-tests A f1", { A: "FAILED" }, []],
    ]);
    expect(s.runsStarted()).to.equal(2);
  });

  it("a flaky failure beside a real one is not retried", () => {
    play({ concurrency: 1 }, [
      ["submit A", {}, ["test A"]],
      ["fail-tests A f1,r1", { A: "FAILED" }, []],
    ]);
  });

  it("a test broken on the target holds new runs, fails no PR, and a passing run in flight resumes", () => {
    const s = play({ concurrency: 2 }, [
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      ["fail-tests A b1", { A: "PENDING" }, []],
    ]);
    expect(s.state.targetBroken?.test.name).to.equal("b1");
    expect(s.last?.notices.find((n) => n.type === "TARGET_BROKEN")).to.deep.include({
      reason: "target broken: test b1 failing on main since 1970-01-01T00:00:01.000Z",
    });
    s.play([
      ["submit C", { C: "PENDING" }, []],
      // B's run was in flight: it passed every test, the broken one too, so the target is fixed and runs start.
      ["pass B", { A: "TESTING", B: "TESTS_PASSED" }],
    ]);
    expect(s.state.targetBroken ?? null).to.equal(null);
    expect(s.last?.decisions.map((d) => d.type)).to.include("START_TEST_RUN");
    expect([...s.finalStates.values()]).to.not.include("FAILED");
  });

  it("a hold for a broken target ends when an operator resumes the queue or the target moves", () => {
    const s = play({ concurrency: 1 }, [
      ["submit A", {}, ["test A"]],
      ["fail-tests A b1", { A: "PENDING" }, []],
      ["submit B", {}, []],
      ['set {"state":"RUNNING"}', {}, ["test A"]],
      ["fail-tests A b1", { A: "PENDING", B: "PENDING" }, []],
      ["target-moved", {}, ["test A"]],
    ]);
    expect(s.state.targetBroken ?? null).to.equal(null);
  });

  it("with holdOnBrokenTarget off, a broken test fails the run as today", () => {
    play({ concurrency: 1, holdOnBrokenTarget: false }, [
      ["submit A", {}, ["test A"]],
      ["fail-tests A b1", { A: "FAILED" }, []],
    ]);
  });

  describe("a pair whose own run failed a test its batch failed", () => {
    const fours = {
      concurrency: 2,
      bisectionConcurrency: 4,
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 120,
    };
    const searched: Row[] = [
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      // EFGH starts late enough that its run, built on ABCD, is no witness worth waiting for (witness.ts).
      ["wait 30", {}],
      ["submit E", {}],
      ["submit F", {}],
      ["submit G", {}],
      ["submit H", {}, ["test EFGH on ABCD"]],
      // EFGH goes on without ABCD, so the search tests each half on the target alone; CD waits for AB.
      [
        "fail-tests ABCD r2",
        { A: "PENDING_FAILURE", E: "TESTING" },
        ["cancel EFGH", "bisect AB", "test EFGH"],
      ],
      // AB failed the batch's test: CD goes back into the line untested, and B waits for A's run.
      ["fail-tests AB r2", { A: "PENDING_FAILURE", C: "PENDING" }, ["bisect A"]],
    ];

    it("fails the second PR, with no run of its own, once the first passed alone", () => {
      const s = play(fours, [
        ...searched,
        // A goes back into the line with C and D, behind EFGH.
        ["pass A", { A: "TESTING", B: "FAILED" }, ["test ACD on EFGH"]],
      ]);
      // Its history says what decided it, since no run of its own did.
      expect(s.failedDetailOf("B")).to.equal(
        "its run with #1 failed a test the batch failed, and #1 passed on its own",
      );
      // ABCD, EFGH twice, AB, A, and ACD in line: B had no run of its own.
      expect(s.runsStarted()).to.equal(6);
    });

    it("sends the second back into the line untested when the first failed that test alone", () => {
      play(fours, [...searched, ["fail-tests A r2", { A: "FAILED", B: "TESTING" }, ["test BCD on EFGH"]]]);
    });
  });

  describe("a lone PR whose run failed, and the run built on it", () => {
    const lone = { concurrency: 2, bisectionConcurrency: 4, batch: true, batchingMinSize: 1 };
    const stacked: Row[] = [
      ["submit A", {}, ["test A"]],
      ["submit B", {}, ["test B on A"]],
      // B's run goes on as A's witness (AB): B restarts without A, and A gets no run of its own yet.
      ["fail-tests A r1", { A: "PENDING_FAILURE", B: "TESTING" }, ["test B"]],
    ];

    it("fails the PR when that run fails the same test: no run of its own is spent", () => {
      const s = play(lone, [...stacked, ["fail-tests AB r1", { A: "FAILED", B: "TESTING" }, []]]);
      expect(s.runsStarted()).to.equal(3);
      // Its history names the run that decided it: another PR's.
      const failed = s.last?.notices.find(
        (n) => n.type === "PR_STATE_CHANGED" && n.pr === 1 && n.to === "FAILED",
      );
      expect(failed?.type === "PR_STATE_CHANGED" && failed.detail).to.equal(
        "the run built on it (with #2) failed a test its own run failed",
      );
      play(lone, [
        ...stacked,
        ["pass B", { B: "TESTS_PASSED" }, ["merge B"]],
        ["fail-tests AB r1", { A: "FAILED" }, []],
      ]);
    });

    it("uses that run's result when it came before the PR's search could begin", () => {
      const s = play({ ...lone, concurrency: 3 }, [
        ["submit A", {}, ["test A"]],
        ["submit B", {}, ["test B on A"]],
        ["submit C", {}, ["test C on AB"]],
        // B fails while A is still testing: its failure may be A's, so it waits.
        ["fail-tests B r1", { B: "PENDING_FAILURE", C: "TESTING" }, []],
        // A passes: B steps aside, C's run goes on as B's witness (BC), C restarts; B's search waits for A's merge.
        ["pass A", { A: "TESTS_PASSED", B: "PENDING_FAILURE" }, ["merge A", "test C on A"]],
        ["fail-tests BC r1", { B: "PENDING_FAILURE" }, []],
        ["merged A", { A: "MERGED", B: "FAILED" }, []],
      ]);
      expect(s.runsStarted()).to.equal(4);
    });

    it("sends the PR back into the line when that run passes: its failure was a flake", () => {
      const s = play(lone, [...stacked, ["pass AB", { A: "TESTING", B: "TESTING" }, ["test A on B"]]]);
      expect(s.runsStarted()).to.equal(4);
      expect(s.detailsOf("A")).to.include(
        "the run built on it (with #2) passed: its own run's failure was a flake",
      );
    });

    it("tests the PR on its own when that run fails other tests, and fails it only then", () => {
      play(lone, [
        ...stacked,
        ["fail-tests AB r2", { A: "PENDING_FAILURE" }, ["bisect A"]],
        ["fail-tests A r1", { A: "FAILED" }, []],
      ]);
    });

    it("shows the PRs behind under their own runs, not the witness: an external CI reads testRunId from there", () => {
      const s = play(lone, stacked);
      expect(runTesting(s.state, 2)).to.equal(s.runningRunFor("B"));
      expect(runTesting(s.state, 1)).to.equal(s.runningRunFor("AB"));
    });

    it("fails no PR behind when that run conflicts on it: the PR's own run decides", () => {
      play(lone, [
        ...stacked,
        ["conflict AB B", { A: "PENDING_FAILURE", B: "TESTING" }, ["bisect A"]],
        ["pass B", { B: "TESTS_PASSED" }, ["merge B"]],
      ]);
    });

    it("keeps no witness in a STACKED search, nor without batching", () => {
      play({ ...lone, bisectionMode: "STACKED" }, [
        ["submit A", {}, ["test A"]],
        ["submit B", {}, ["test B on A"]],
        ["fail-tests A r1", { A: "PENDING_FAILURE", B: "TESTING" }, ["cancel B", "bisect A", "test B"]],
      ]);
      play({ concurrency: 2 }, [
        ["submit A", {}, ["test A"]],
        ["submit B", {}, ["test B on A"]],
        ["fail-tests A r1", { A: "FAILED", B: "TESTING" }, ["cancel B", "test B"]],
      ]);
    });
  });
});
