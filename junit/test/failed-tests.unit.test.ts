import { expect } from "chai";
import { failedTestsOf, testId } from "../src/index.js";

const scope = { org: "acme", repo: { host: "github.com", owner: "acme", name: "app" } };
const report = (cases: string): string => `<testsuite name="suite">${cases}</testsuite>`;
const failing = (name: string): string =>
  `<testcase classname="c" name="${name}"><failure message="x"/></testcase>`;
const passing = (name: string): string => `<testcase classname="c" name="${name}"/>`;

describe("failedTestsOf", () => {
  it("names the failed tests under the ids flaky-analytics gives them", () => {
    const got = failedTestsOf([report(failing("a") + passing("b"))], scope);
    expect(got.truncated).to.equal(false);
    expect(got.failed).to.deep.equal([
      { id: testId({ ...scope, classname: "c", parent: "suite", name: "a" }), name: "c › a" },
    ]);
  });

  it("does not count a test that passed in another report of the run (a rerun)", () => {
    const got = failedTestsOf([report(failing("a")), report(passing("a"))], scope);
    expect(got.failed).to.deep.equal([]);
  });

  it("keeps at most the limit and says the list is truncated", () => {
    const cases = Array.from({ length: 7 }, (_, i) => failing(`t${i}`)).join("");
    const got = failedTestsOf([report(cases)], scope, 5);
    expect(got.failed).to.have.length(5);
    expect(got.truncated).to.equal(true);
  });

  it("marks the list truncated when a report cannot be read: it may hide failures", () => {
    const got = failedTestsOf(["<not-xml", report(failing("a"))], scope);
    expect(got.failed).to.have.length(1);
    expect(got.truncated).to.equal(true);
  });

  it("bounds a test's display name", () => {
    const got = failedTestsOf([report(failing("n".repeat(2000)))], scope);
    expect(got.failed[0]?.name.length).to.equal(1024);
  });
});
