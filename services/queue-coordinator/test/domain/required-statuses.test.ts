import { expect } from "chai";
import { verdictOf, withStatus, type StatusCheck } from "../../src/domain/required-statuses.js";

const check = (context: string, state: StatusCheck["state"]): StatusCheck => ({ context, url: "", state });

describe("required statuses decide a test run from the code host's CI results", () => {
  it("passes only when every required context succeeded, and fails at the first required failure", () => {
    const required = ["build", "test"];
    const one = [check("build", "success")];
    expect(verdictOf(required, one, { context: "build", state: "SUCCESS", suite: false })).to.deep.equal({
      type: "WAITING",
      missing: ["test"],
    });
    const both = [...one, check("test", "success")];
    expect(verdictOf(required, both, { context: "test", state: "SUCCESS", suite: false })).to.deep.equal({
      type: "PASSED",
    });
    const failed = [...one, check("test", "failure")];
    expect(verdictOf(required, failed, { context: "test", state: "FAILURE", suite: false })).to.deep.equal({
      type: "FAILED",
      context: "test",
    });
  });

  it("ignores contexts that are not required, however they end", () => {
    const checks = [check("lint", "failure"), check("build", "pending")];
    expect(verdictOf(["build"], checks, { context: "lint", state: "FAILURE", suite: false }).type).to.equal(
      "WAITING",
    );
  });

  it("without required statuses, a completed suite decides and a lone commit status never does", () => {
    expect(verdictOf([], [], { context: "ci", state: "SUCCESS", suite: false }).type).to.equal("WAITING");
    expect(verdictOf([], [], { context: "Actions", state: "PENDING", suite: true }).type).to.equal("WAITING");
    expect(verdictOf([], [], { context: "Actions", state: "SUCCESS", suite: true }).type).to.equal("PASSED");
    expect(verdictOf([], [], { context: "Actions", state: "FAILURE", suite: true })).to.deep.equal({
      type: "FAILED",
      context: "Actions",
    });
  });

  it("keeps the latest state of each context (a re-run that passes replaces the failure)", () => {
    const first = withStatus([], { context: "test", state: "FAILURE", url: "u1" });
    const rerun = withStatus(first, { context: "test", state: "SUCCESS", url: "u2" });
    expect(rerun).to.deep.equal([{ context: "test", state: "success", url: "u2" }]);
  });
});
