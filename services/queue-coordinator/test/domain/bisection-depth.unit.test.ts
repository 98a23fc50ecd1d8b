import { Scenario } from "./scenario-table.js";

// Tenth pass: with a batch of its lane waiting behind it, a search keeps one combination in flight. The second one
// was mostly cancelled (BATCH_REFORMED) once the first group it settled joined or moved the batches waiting behind.
describe("planner: a bisection speculates only while nothing waits behind it", () => {
  it("with a batch waiting behind, one combination is in flight", () => {
    new Scenario({ batch: true, batchingMinSize: 4, concurrency: 1, bisectionConcurrency: 3 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["submit E", {}],
      ["submit F", {}],
      ["submit G", {}],
      ["submit H", {}],
      // EFGH waits for the one main slot as ABCD fails: only AB is searched, not C on top of it.
      ["fail ABCD", {}, ["bisect AB", "test EFGH"]],
    ]);
  });

  it("a second combination already in flight stays when a batch forms behind", () => {
    new Scenario({ batch: true, batchingMinSize: 4, concurrency: 1, bisectionConcurrency: 3 }).play([
      ["submit A", {}],
      ["submit B", {}],
      ["submit C", {}],
      ["submit D", {}, ["test ABCD"]],
      ["fail ABCD", {}, ["bisect AB", "bisect C on AB"]],
      // E's batch forms behind the search: cancelling C on AB would not give back the run it cost.
      ["submit E", {}, []],
      ["submit F", {}, []],
      ["submit G", {}, []],
      ["submit H", {}, ["test EFGH"]],
    ]);
  });
});
