import { expect } from "chai";
import {
  reportedOutcome,
  RUN_OUTCOMES,
  runKindOf,
  runKindOfWire,
  runOutcomeOfWire,
  runResultContext,
  statusCheckStateOf,
  testRunStatusOf,
  wireRunKind,
  wireRunOutcome,
} from "../src/index.js";

describe("contract: run outcome and run kind", () => {
  it("every outcome survives the gRPC wire and back; the wire's ERROR is BUILD_FAILED", () => {
    for (const outcome of RUN_OUTCOMES) expect(runOutcomeOfWire(wireRunOutcome(outcome))).to.equal(outcome);
    expect(wireRunOutcome("BUILD_FAILED")).to.equal("ERROR");
    expect(runOutcomeOfWire("BUILD_FAILED")).to.equal(undefined);
    expect(runOutcomeOfWire("UNSPECIFIED")).to.equal(undefined);
  });

  it("writes one outcome as the record's status and the status check's state", () => {
    expect(testRunStatusOf(reportedOutcome(true))).to.equal("SUCCEEDED");
    expect(testRunStatusOf("MERGE_CONFLICT")).to.equal("FAILED");
    expect(["PASSED", "FAILED", "TIMED_OUT"].map((v) => statusCheckStateOf(v as "PASSED"))).to.deep.equal([
      "success",
      "failure",
      "error",
    ]);
  });

  it("reads a run's kind from the wire, a flag, and names its results' context", () => {
    expect(runKindOfWire(wireRunKind("bisection"))).to.equal("bisection");
    expect(runKindOfWire("UNSPECIFIED")).to.equal("main");
    expect(runKindOf(false)).to.equal("main");
    expect(runResultContext("bisection")).to.equal("BISECTION");
    expect(runResultContext("main")).to.equal("MERGE_QUEUE");
  });
});
