import { expect } from "chai";
import { Scenario, type Row } from "./scenario-table.js";

describe("planner: batching (rules 1-7)", () => {
  it("forms a batch when the target size fills, and tests the next on top of it", () => {
    new Scenario({ batch: true, batchingMinSize: 3, concurrency: 2 }).play([
      ["submit A", { A: "PENDING" }, []],
      ["submit B", {}, []],
      ["submit C", { A: "TESTING", B: "TESTING", C: "TESTING" }, ["test ABC"]],
      ["submit D", { D: "PENDING" }, []],
      ["pass ABC", {}, ["merge ABC"]],
      ["merged A", { A: "MERGED", B: "MERGED", C: "MERGED" }, []],
    ]);
  });

  it("forms a partial batch when the maximum wait time elapses", () => {
    const s = new Scenario({ batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 5 });
    s.play([
      ["submit A", {}, []],
      ["wait 2", {}, []],
      ["submit B", {}, []],
    ]);
    expect(s.last?.wakeAt).to.equal(5 * 60_000);
    s.play([["wait 3", { A: "TESTING", B: "TESTING" }, ["test AB"]]]);
  });

  it("a PR a bisection sent back starts in a free slot once nothing else can join it, without a second wait", () => {
    // Before, A idled out the max wait counted from its submission with a slot free (make demo: 45 s).
    new Scenario({
      bisectionMode: "STACKED",
      batch: true,
      batchingMinSize: 2,
      concurrency: 3,
      batchingMaxWaitTimeMinutes: 5,
    }).play([
      ["submit A", {}],
      ["submit B", {}, ["test AB"]],
      ["submit C", {}],
      ["submit D", {}, ["test CD on AB"]],
      ["fail AB", { A: "PENDING_FAILURE" }, ["cancel CD", "bisect A", "test CD"]],
      // CD started without A, so A goes back into line; B is still searched and may come back to join it.
      ["pass A", { A: "PENDING" }, ["bisect B on A"]],
      ["fail B", { B: "FAILED", A: "TESTING" }, ["test A on CD"]],
      ["pass CD", {}, ["merge CD"]],
      ["merged C", { C: "MERGED", D: "MERGED" }, []],
      ["pass A", {}, ["merge A"]],
    ]);
  });

  it("a noBatch PR in the middle tests alone, in its place, and restarts nobody", () => {
    new Scenario({ batch: true, batchingMinSize: 3, concurrency: 3 }).play([
      ["submit A", {}, []],
      ["submit B", {}, []],
      ["submit N nobatch", { N: "TESTING" }, ["test AB", "test N on AB"]],
      ["submit C", {}, []],
      ["submit D", {}, []],
      ["submit E", { C: "TESTING" }, ["test CDE on ABN"]],
      ["pass N", { N: "TESTS_PASSED" }, []],
      ["pass AB", {}, ["merge AB"]],
    ]);
  });

  it("removes a cancelled PR from its batch and retests the rest", () => {
    new Scenario({ batch: true, batchingMinSize: 2, concurrency: 2 }).play([
      ["submit A", {}, []],
      ["submit B", {}, ["test AB"]],
      ["cancel A", { A: "CANCELLED", B: "TESTING" }, ["cancel AB", "test B"]],
    ]);
  });

  // Each batch closed small when a slot freed; a failure ahead restarts them together.
  const cutSmall: Row[] = [
    ["submit A", {}, []],
    ["wait 1", {}, ["test A"]],
    ["submit B", {}, []],
    ["wait 1", {}, ["test B on A"]],
    ["submit C", {}, []],
    ["submit D", {}, []],
    ["wait 1", {}, ["test CD on AB"]],
  ];
  const cutSmallSettings = { batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 1 };

  it("batches the PRs a failure ahead restarted again as one line, one run for what took two", () => {
    // B's old run goes on as A's witness; B and CD restart as one batch of three, not as B and CD on B.
    new Scenario({ ...cutSmallSettings, concurrency: 4 }).play([
      ...cutSmall,
      ["fail A", { A: "PENDING_FAILURE", B: "TESTING", D: "TESTING" }, ["cancel CD", "test BCD"]],
      ["pass BCD", { B: "TESTS_PASSED", D: "TESTS_PASSED" }, ["merge BCD"]],
    ]);
  });

  it("keeps the restarted batches as they were while other PRs wait to be tested", () => {
    // With a line behind them every slot fills anyway: batching them again would batch them with that line.
    new Scenario({ ...cutSmallSettings, concurrency: 3 }).play([
      ...cutSmall,
      ["submit E", {}, []],
      ["submit F", {}, []],
      ["submit G", { G: "PENDING" }, []],
      ["fail A", { E: "TESTING" }, ["cancel CD", "test B", "test CD on B", "test EFG on BCD"]],
    ]);
  });
});
