import { expect } from "chai";
import { play, type Row } from "./test-aware-scenario.js";

/**
 * What a failed run's tests say of the batches around it (issue 27): a batch behind a failed one whose run failed
 * other tests keeps that failure as its own, and a batch ahead whose failure it did not repeat is tested again.
 */
describe("planner: a failed run and the batches built on it", () => {
  describe("a batch behind a failed one, whose own run had already failed", () => {
    const batches = {
      concurrency: 2,
      bisectionConcurrency: 4,
      batch: true,
      batchingMinSize: 2,
      batchingMaxWaitTimeMinutes: 1,
    };
    const behind: Row[] = [
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["submit C", {}],
      ["submit D", {}, ["test CD on AB"]],
    ];

    it("keeps its failure when it failed a test the batch ahead did not: it is searched, not run again", () => {
      const s = play(batches, [
        ...behind,
        ["fail-tests CD r1,r2", { C: "PENDING_FAILURE", D: "PENDING_FAILURE" }, []],
        // AB failed r1 only, so r2 is CD's own failure: both searches start, and CD is not tested again in line.
        ["fail-tests AB r1", { A: "PENDING_FAILURE", C: "PENDING_FAILURE" }, ["bisect A", "bisect C"]],
        ["fail-tests C r2", { C: "FAILED" }, ["bisect D"]],
        ["fail-tests A r1", { A: "FAILED" }, ["bisect B"]],
      ]);
      // C failed on its own run, the first time after the main run it shared with AB: no main run in between.
      expect(s.changesOf("C")).to.not.include("PENDING ITEM_AHEAD_REMOVED");
      expect(s.runsStarted()).to.equal(6);
    });

    it("restarts as before when every test it failed is one the batch ahead failed too", () => {
      play(batches, [
        ...behind,
        ["fail-tests CD r1", { C: "PENDING_FAILURE" }, []],
        [
          "fail-tests AB r1",
          { A: "PENDING_FAILURE", C: "TESTING", D: "TESTING" },
          ["bisect A", "bisect B", "test CD"],
        ],
      ]);
    });

    it("restarts as before without batching: with no search to clear it, a run it shared with a failed PR fails no one", () => {
      play({ concurrency: 2 }, [
        ["submit A", {}, ["test A"]],
        ["submit B", {}, ["test B on A"]],
        ["fail-tests B r1,r2", { B: "PENDING_FAILURE" }, []],
        ["fail-tests A r1", { A: "FAILED", B: "TESTING" }, ["test B"]],
      ]);
    });

    const deeper = { ...batches, concurrency: 4 };
    const four: Row[] = [
      ...behind,
      ["submit E", {}],
      ["submit F", {}, ["test EF on ABCD"]],
      ["submit G", {}],
      ["submit H", {}, ["test GH on ABCDEF"]],
    ];

    // EF's run failed r2, which AB's did not: when AB steps aside (its retry in place used), EF's failure is its own.
    const steppedAside: Row[] = [
      ...four,
      ["pass CD", { C: "TESTS_PASSED" }, []],
      // CD's passing run held AB: AB's failure is retried in place, once.
      ["fail-tests AB r1", { A: "TESTING", C: "TESTS_PASSED" }, ["test AB"]],
      ["fail-tests EF r2", { E: "PENDING_FAILURE" }, []],
      // AB fails again and steps aside. r2 is EF's own (AB did not fail it), so EF steps aside too, now, and GH
      // starts on CD's new run at once instead of waiting for it to pass. GH's old run goes on as AB's witness
      // (witness.ts): AB's search waits for it.
      [
        "fail-tests AB r1",
        { A: "PENDING_FAILURE", C: "TESTING", E: "PENDING_FAILURE", G: "TESTING" },
        ["test CD", "test GH on CD"],
      ],
    ];

    it("steps aside at once, without waiting for the batch between them to be tested again", () => {
      const s = play(deeper, [
        ...steppedAside,
        ["pass CD", { C: "TESTS_PASSED", G: "TESTING" }, ["merge CD"]],
      ]);
      expect(s.changesOf("E")).to.not.include("PENDING ITEM_AHEAD_REMOVED");
    });

    it("goes back into the line untested when the batch between turns out to have failed its tests", () => {
      const s = play(deeper, [
        ...steppedAside,
        // CD fails r2 as well: EF's failure was CD's. E and F go back into the line, as a search's released PRs do,
        // behind GH, which had started testing before; EF is never searched. GH's run, built on CD, goes on as CD's
        // witness (witness.ts): CD's search waits for it.
        [
          "fail-tests CD r2",
          { C: "PENDING_FAILURE", E: "TESTING", G: "TESTING" },
          ["test GH", "test EF on GH"],
        ],
      ]);
      expect(s.changesOf("E")).to.include("PENDING FAILURE_EXPLAINED_ELSEWHERE");
      expect(s.detailsOf("E")).to.include("#3, #4 failed the tests its run failed; tested again in line");
    });

    it("a failed batch whose successor's run failed only other tests is tested again in its place", () => {
      const s = play(deeper, [
        ...four,
        ["fail-tests CD r2", { C: "PENDING_FAILURE" }, []],
        // CD's run held AB and did not fail r1, so AB's failure was not its PRs' (a bad PR fails its tests wherever
        // it runs): AB runs again in its place. CD's failure is its own: it steps aside at once, and EF and GH go on
        // on AB's new run. EF's old run, built on CD, goes on as CD's witness (witness.ts).
        [
          "fail-tests AB r1",
          { A: "TESTING", C: "PENDING_FAILURE", E: "TESTING" },
          ["cancel GH", "test AB", "test EF on AB", "test GH on ABEF"],
        ],
        ["pass AB", { A: "TESTS_PASSED" }, ["merge AB"]],
      ]);
      expect(s.changesOf("A")).to.include("PENDING FAILURE_NOT_CONFIRMED");
    });

    it("restarts as before when the batch ahead's failure named no tests", () => {
      play(batches, [
        ...behind,
        ["fail-tests CD r1,r2", { C: "PENDING_FAILURE" }, []],
        [
          "fail AB",
          { A: "PENDING_FAILURE", C: "TESTING", D: "TESTING" },
          ["bisect A", "bisect B", "test CD"],
        ],
      ]);
    });
  });
});
