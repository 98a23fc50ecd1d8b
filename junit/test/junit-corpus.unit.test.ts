import { expect } from "chai";
import { readdirSync, readFileSync } from "node:fs";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { readJUnitReport, type JUnitReport } from "../src/index.js";

/**
 * Real reports written by real runners (test/fixtures/junit-corpus/SOURCES.md says where each comes from).
 * Every valid one is read whole; the negative cases fail with the request's field and the place they break.
 */
const DIR = new URL("./fixtures/junit-corpus/", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, DIR), "utf8");
const NOT_JUNIT = new Set(["pytest-corrupt-truncated.xml", "nunit3-reference-test-run.xml"]);
const FILES = readdirSync(DIR).filter((f) => f.endsWith(".xml"));

const executions = (report: JUnitReport) => report.results.reduce((n, r) => n + r.attempts.length, 0);
const failures = (report: JUnitReport) =>
  report.results.filter((r) => r.outcome === "failed" || r.outcome === "error");
const errorOf = (fn: () => unknown): InvalidArgumentError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error;
    throw error;
  }
  throw new Error("expected an InvalidArgumentError");
};

describe("JUnit corpus: reports of real runners", () => {
  it("holds every file SOURCES.md lists", () => {
    const listed = [...read("SOURCES.md").matchAll(/^\| ([\w.-]+\.xml) \|/gm)].map((m) => m[1]);
    expect(listed.length, "files SOURCES.md lists").to.be.greaterThan(NOT_JUNIT.size);
    expect(FILES.slice().sort()).to.deep.equal(listed.slice().sort());
  });

  for (const file of FILES.filter((f) => !NOT_JUNIT.has(f))) {
    it(`reads ${file} whole`, () => {
      const xml = read(file);
      const report = readJUnitReport(xml, { field: "junit[0]" });
      expect(report.results.length).to.be.greaterThan(0);
      // Only the report builder's nameless cases are unreadable; every other case of the corpus is a test.
      if (file !== "junit-report-builder-expected.xml") expect(report.ignored).to.deep.equal([]);
    });
  }

  it("keeps jest's name=\"\" test and all 4,239 test cases of jest's own suite, with its 2 failures", () => {
    const report = readJUnitReport(read("jest-junit-jest-repo-large.xml"), { field: "junit[0]" });
    expect(report.ignored).to.deep.equal([]);
    expect(executions(report)).to.equal(4239);
    // Same-named cases of one file are one test (one id) with several executions.
    expect(report.results).to.have.length(4142);
    expect(report.results.filter((r) => r.name === "")).to.deep.include.members([
      {
        ...report.results.find((r) => r.name === "")!,
        parent: "e2e/__tests__/promiseReject.test.ts",
        outcome: "passed",
      },
    ]);
    expect(failures(report).map((r) => r.name)).to.deep.equal([
      "gets changed files for hg",
      "gets changed files for hg",
    ]);
  });

  it("leaves out test cases without a name attribute, says why, and keeps the rest", () => {
    const report = readJUnitReport(read("junit-report-builder-expected.xml"), { field: "junit[3]" });
    expect(report.results.map((r) => r.name)).to.have.length(2);
    expect(report.ignored).to.have.length(4);
    expect(report.ignored[0]).to.deep.equal({
      field: "junit[3]",
      suite: "second.Suite",
      classname: "",
      reason: "the <testcase> has no name attribute",
    });
  });

  it("names the request's field and the line where a truncated file breaks", () => {
    const error = errorOf(() => readJUnitReport(read("pytest-corrupt-truncated.xml"), { field: "junit[0]" }));
    expect(error.field).to.equal("junit[0]");
    expect(error.message).to.equal(
      "junit[0]: malformed XML at line 11, column 22: the document ends with <testsuites>, <testsuite>, " +
        "<testcase>, <skipped> still open (is the file truncated?)",
    );
  });

  it("refuses NUnit's own format as not JUnit", () => {
    const error = errorOf(() =>
      readJUnitReport(read("nunit3-reference-test-run.xml"), { field: "junit[1]" }),
    );
    expect(error.message).to.match(/^junit\[1\]: is not a JUnit report: .*found <test-run>/);
  });

  it("quotes a character the document may not start with whole, not half of it", () => {
    const error = errorOf(() => readJUnitReport("🚀", { field: "junit[0]" }));
    expect(error.message).to.equal("junit[0]: malformed XML at line 1, column 1: char '🚀' is not expected.");
  });
});
