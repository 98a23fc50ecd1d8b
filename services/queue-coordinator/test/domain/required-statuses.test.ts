import { expect } from "chai";
import { verdictOf, withStatus, type StatusCheck } from "../../src/domain/required-statuses.js";

const check = (context: string, state: StatusCheck["state"], suite = false): StatusCheck => ({
  context,
  url: "",
  state,
  ...(suite ? { suite: true } : {}),
});

describe("required statuses decide a test run from the code host's CI results", () => {
  it("passes only when every required context succeeded, and fails at the first required failure", () => {
    const required = ["build", "test"];
    const one = [check("build", "success")];
    expect(verdictOf(required, one)).to.deep.equal({ type: "WAITING", missing: ["test"] });
    expect(verdictOf(required, [...one, check("test", "success")])).to.deep.equal({ type: "PASSED" });
    expect(verdictOf(required, [...one, check("test", "failure")])).to.deep.equal({
      type: "FAILED",
      context: "test",
    });
  });

  it("ignores contexts that are not required, however they end", () => {
    const checks = [check("lint", "failure"), check("build", "pending")];
    expect(verdictOf(["build"], checks).type).to.equal("WAITING");
    expect(verdictOf(["build"], [check("lint", "failure"), check("build", "success")]).type).to.equal(
      "PASSED",
    );
  });

  it("without required statuses, passes on a successful suite only when nothing reported is still pending", () => {
    expect(verdictOf([], [check("ci", "success")]).type, "a lone commit status").to.equal("WAITING");
    expect(verdictOf([], [check("Actions", "pending", true)]).type).to.equal("WAITING");
    expect(verdictOf([], [check("Actions", "success", true)]).type).to.equal("PASSED");
    // A fast App's suite does not pass a run another App's CI is still testing.
    expect(verdictOf([], [check("Linter", "success", true), check("unit tests", "pending")])).to.deep.equal({
      type: "WAITING",
      missing: ["unit tests"],
    });
    expect(verdictOf([], [check("Linter", "success", true), check("unit tests", "failure")])).to.deep.equal({
      type: "FAILED",
      context: "unit tests",
    });
  });

  it("keeps the latest state of each context (a re-run that passes replaces the failure)", () => {
    const first = withStatus([], { context: "test", state: "FAILURE", url: "u1", suite: false });
    const rerun = withStatus(first, { context: "test", state: "SUCCESS", url: "u2", suite: false });
    expect(rerun).to.deep.equal([{ context: "test", state: "success", url: "u2" }]);
  });
});
