import { expect } from "chai";
import {
  checkSuiteContext,
  verdictOf,
  withStatus,
  type StatusCheck,
} from "../../src/domain/required-statuses.js";

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

  it("a required App name is met once every check suite of that App succeeded (one suite per Actions workflow)", () => {
    const lint = checkSuiteContext("GitHub Actions", 1001);
    const tests = checkSuiteContext("GitHub Actions", 1002);
    expect(lint).to.equal("GitHub Actions (check suite 1001)");
    const required = ["GitHub Actions"];
    expect(verdictOf(required, [check(lint, "success", true), check(tests, "pending", true)])).to.deep.equal({
      type: "WAITING",
      missing: ["GitHub Actions"],
    });
    expect(verdictOf(required, [check(lint, "success", true), check(tests, "failure", true)])).to.deep.equal({
      type: "FAILED",
      context: "GitHub Actions",
    });
    expect(verdictOf(required, [check(lint, "success", true), check(tests, "success", true)]).type).to.equal(
      "PASSED",
    );
    // Another App's suites, and a context that only starts with the name, are not its suites.
    expect(verdictOf(required, [check(checkSuiteContext("Other CI", 7), "success", true)]).type).to.equal(
      "WAITING",
    );
    expect(
      verdictOf(required, [check("GitHub Actions extra (check suite 3)", "success", true)]).type,
    ).to.equal("WAITING");
    // Two suites, each with its own context: the second does not overwrite the first.
    const both = withStatus(withStatus([], { context: lint, state: "FAILURE", url: "", suite: true }), {
      context: tests,
      state: "SUCCESS",
      url: "",
      suite: true,
    });
    expect(verdictOf([], both)).to.deep.equal({ type: "FAILED", context: lint });
  });
});
