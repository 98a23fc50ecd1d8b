import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { parseJUnitXml, readJUnitReport } from "../src/index.js";
import type { TestCaseResult } from "../src/index.js";
import { junitFixture } from "./fixture.js";

function byName(results: TestCaseResult[], name: string): TestCaseResult {
  const found = results.find((result) => result.name === name);
  if (!found) throw new Error(`no case named ${name}; have ${results.map((r) => r.name).join(", ")}`);
  return found;
}

function outcomes(result: TestCaseResult): string[] {
  return result.attempts.map((attempt) => attempt.outcome);
}

function rejection(xml: string, field?: string): InvalidArgumentError {
  try {
    parseJUnitXml(xml, field === undefined ? {} : { field });
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgumentError);
    return error as InvalidArgumentError;
  }
  throw new Error("expected the document to be rejected");
}

describe("parseJUnitXml", () => {
  describe("Maven Surefire (generated, JUnit 5, rerunFailingTestsCount=2)", () => {
    const results = parseJUnitXml(junitFixture("surefire-junit5-reruns.xml"));

    it("reads every case with its class, suite and duration", () => {
      expect(results.map((r) => r.name)).to.have.members([
        "roundsHalfEven",
        "appliesVat",
        "throwsOnBadCurrency",
        "totalsLineItems",
        "retriesNetworkFetch",
      ]);
      const passed = byName(results, "totalsLineItems");
      expect(passed).to.include({
        outcome: "passed",
        classname: "com.example.billing.InvoiceTest",
        parent: "com.example.billing.InvoiceTest",
      });
      expect(byName(results, "roundsHalfEven").durationMs).to.equal(27);
    });

    it("records a flakyFailure as a failed attempt then a passed one", () => {
      const flaky = byName(results, "retriesNetworkFetch");
      expect(flaky.outcome).to.equal("passed");
      expect(outcomes(flaky)).to.deep.equal(["failed", "passed"]);
      expect(flaky.attempts[0]?.failure?.message).to.equal("connection reset by peer after 1500 ms");
      expect(flaky.attempts[0]?.failure?.body).to.match(/^org\.opentest4j\.AssertionFailedError/);
    });

    it("records rerunFailure and rerunError as further failed attempts", () => {
      const failing = byName(results, "roundsHalfEven");
      expect(failing.outcome).to.equal("failed");
      expect(outcomes(failing)).to.deep.equal(["failed", "failed", "failed"]);
      expect(failing.failure).to.deep.include({
        message: "rounded total ==> expected: <3> but was: <2>",
        type: "org.opentest4j.AssertionFailedError",
      });
      const erroring = byName(results, "throwsOnBadCurrency");
      expect(erroring.outcome).to.equal("error");
      expect(outcomes(erroring)).to.deep.equal(["error", "error", "error"]);
    });

    it("keeps the reason of a skipped case", () => {
      expect(byName(results, "appliesVat")).to.include({
        outcome: "skipped",
        skippedMessage: "waiting for tax service",
      });
    });
  });

  describe("Gradle (hand-written)", () => {
    it("reads failures, skips and suite output", () => {
      const results = parseJUnitXml(junitFixture("gradle-junit-platform.xml"));
      expect(results).to.have.length(4);
      expect(byName(results, "rejectsNegativeAmount()").failure?.message).to.equal(
        "org.opentest4j.AssertionFailedError: expected: <true> but was: <false>",
      );
      expect(byName(results, "closesPeriod()").outcome).to.equal("skipped");
    });

    it("reads flakyFailure and flakyError of the test-retry plugin with mergeReruns", () => {
      const results = parseJUnitXml(junitFixture("gradle-test-retry-merged.xml"));
      expect(outcomes(byName(results, "settlesBatch()"))).to.deep.equal(["failed", "passed"]);
      const errorThenPass = byName(results, "reconcilesFx()");
      expect(errorThenPass.outcome).to.equal("passed");
      expect(outcomes(errorThenPass)).to.deep.equal(["error", "error", "passed"]);
      expect(outcomes(byName(results, "roundsToCents()"))).to.deep.equal(["failed", "failed"]);
    });

    it("folds reruns written as repeated testcases into one result", () => {
      const results = parseJUnitXml(junitFixture("gradle-test-retry-unmerged.xml"));
      expect(results).to.have.length(1);
      expect(results[0]).to.include({ name: "settlesBatch()", outcome: "passed", durationMs: 608 });
      expect(outcomes(results[0] as TestCaseResult)).to.deep.equal(["failed", "passed"]);
    });
  });

  describe("pytest (generated with pytest 9)", () => {
    it("xunit1: reads file and line from the case, errors and skips", () => {
      const results = parseJUnitXml(junitFixture("pytest-xunit1.xml"));
      expect(results).to.have.length(9);
      expect(byName(results, "test_cancel_order")).to.include({
        classname: "tests.test_orders.TestOrderBook",
        file: "tests/test_orders.py",
        line: 9,
        parent: "pytest",
        outcome: "failed",
      });
      expect(byName(results, "test_uses_fixture").outcome).to.equal("error");
      expect(byName(results, "test_rounding")).to.include({
        outcome: "skipped",
        skippedMessage: "known rounding bug",
      });
    });

    it("xunit1: keeps captured output and drops empty capture sections", () => {
      const results = parseJUnitXml(junitFixture("pytest-xunit1.xml"));
      expect(byName(results, "test_cancel_order").systemOut).to.contain("cancelling order 8f14e45f");
      expect(byName(results, "test_place_order").systemOut).to.equal(undefined);
    });

    it("xunit2: reads parametrized cases as separate tests under the configured suite", () => {
      const results = parseJUnitXml(junitFixture("pytest-xunit2.xml"));
      expect(byName(results, "test_quantity[1]").outcome).to.equal("passed");
      expect(byName(results, "test_quantity[2]")).to.include({ outcome: "failed", parent: "orders" });
      expect(byName(results, "test_quantity[2]").file).to.equal(undefined);
      expect(byName(results, "test_timeout_at_boundary").failure?.message).to.equal(
        "TimeoutError: deadline exceeded after 3000ms at /srv/app/orders/book.py:88",
      );
    });
  });

  describe("jest-junit (generated with jest 29, jest-junit 16)", () => {
    it("reads file attributes on cases and the describe block as the suite", () => {
      const results = parseJUnitXml(junitFixture("jest-junit.xml"));
      expect(results).to.have.length(6);
      expect(byName(results, "parseAmount with locale retries fetch")).to.include({
        file: "src/parser.test.js",
        parent: "parseAmount",
        outcome: "failed",
      });
      expect(byName(results, "parseAmount rejects garbage").failure?.message).to.equal(
        "Error: expect(received).toBe(expected) // Object.is equality",
      );
      expect(byName(results, "top level works").classname).to.equal("top level works");
    });
  });

  describe("mocha (generated with mocha 12 xunit, mocha 10 + mocha-junit-reporter 2)", () => {
    it("xunit: decodes character references and takes the message from the body", () => {
      const results = parseJUnitXml(junitFixture("mocha-xunit.xml"));
      expect(results).to.have.length(6);
      const escaped = byName(results, 'renders <totals> & "tax"');
      expect(escaped).to.include({ classname: "Cart", outcome: "passed" });
      expect(byName(results, "throws on empty cart").failure?.message).to.equal(
        "Cannot read properties of undefined (reading 'items')",
      );
      expect(byName(results, "is pending").outcome).to.equal("skipped");
    });

    it("mocha-junit-reporter: reads the file from the suite", () => {
      const results = parseJUnitXml(junitFixture("mocha-junit-reporter.xml"));
      expect(results).to.have.length(6);
      expect(byName(results, "Cart checkout throws on empty cart")).to.include({
        parent: "checkout",
        file: "/tmp/fixgen/mocha/test/cart.spec.cjs",
        outcome: "failed",
      });
      expect(byName(results, "Cart checkout throws on empty cart").failure?.type).to.equal("TypeError");
    });
  });

  describe("gotestsum (generated with gotestsum 1.8 --rerun-fails=2)", () => {
    const results = parseJUnitXml(junitFixture("gotestsum-reruns.xml"));

    it("folds reruns into attempts: a flaky test passes, a broken one fails three times", () => {
      expect(results).to.have.length(6);
      expect(outcomes(byName(results, "TestFlakyClock"))).to.deep.equal(["failed", "passed"]);
      expect(byName(results, "TestFlakyClock").outcome).to.equal("passed");
      expect(outcomes(byName(results, "TestBalance/negative_amount"))).to.deep.equal([
        "failed",
        "failed",
        "failed",
      ]);
    });

    it("uses the package as classname and suite", () => {
      expect(byName(results, "TestPostEntry")).to.include({
        classname: "github.com/acme/pay/ledger",
        parent: "github.com/acme/pay/ledger",
      });
      expect(byName(results, "TestSkipsClosedPeriod").skippedMessage).to.contain("period 2024-03 is closed");
    });
  });

  describe("Bazel (hand-written)", () => {
    it("reads the generated test.xml and gives the suite log to its only case", () => {
      const [result, ...rest] = parseJUnitXml(junitFixture("bazel-generated-test.xml"));
      expect(rest).to.be.empty;
      expect(result).to.include({
        name: "//payments/ledger:ledger_integration_test",
        outcome: "error",
        durationMs: 12_000,
      });
      expect(result?.failure?.message).to.equal("exited with error code 1");
      expect(result?.systemOut).to.contain("Generated test.log").and.contain("FAIL: ledger rejected entry");
    });

    it("reads googletest's test.xml: notrun cases are skipped", () => {
      const results = parseJUnitXml(junitFixture("bazel-googletest.xml"));
      expect(byName(results, "DISABLED_Converts").outcome).to.equal("skipped");
      expect(byName(results, "RoundsHalfEven").outcome).to.equal("skipped");
      expect(byName(results, "Divides")).to.include({
        outcome: "failed",
        file: "payments/money_test.cc",
        line: 14,
      });
      expect(byName(results, "Adds")).to.include({ outcome: "passed", parent: "MoneyTest" });
    });
  });

  describe("nested suites (PHPUnit, hand-written)", () => {
    it("joins suite names into the parent path and inherits file from the suite", () => {
      const results = parseJUnitXml(junitFixture("phpunit-nested.xml"));
      expect(results).to.have.length(3);
      const coupon = byName(results, 'testAppliesDiscount with data set "coupon"');
      expect(coupon.parent).to.equal(
        "/app/phpunit.xml > Unit > Tests\\Unit\\CartTest > Tests\\Unit\\CartTest::testAppliesDiscount",
      );
      expect(coupon.file).to.equal("/app/tests/Unit/CartTest.php");
      expect(coupon.failure?.message).to.equal(
        'Tests\\Unit\\CartTest::testAppliesDiscount with data set "coupon"',
      );
      expect(byName(results, "testAddsItem").line).to.equal(12);
    });
  });

  describe("shapes and limits", () => {
    it("accepts an empty report", () => {
      expect(parseJUnitXml("<testsuites/>")).to.deep.equal([]);
      expect(
        parseJUnitXml('<?xml version="1.0"?>\n<testsuite name="empty" tests="0"></testsuite>'),
      ).to.deep.equal([]);
    });

    it("shortens long system-out, keeping both ends", () => {
      const noise = "x".repeat(50_000);
      const xml = `<testsuite name="s"><testcase name="t"><system-out>START ${noise} END</system-out></testcase></testsuite>`;
      const [result] = parseJUnitXml(xml, { maxOutputChars: 1000 });
      expect(result?.systemOut?.length).to.be.lessThan(1100);
      expect(result?.systemOut)
        .to.match(/^START/)
        .and.match(/END$/)
        .and.contain("characters omitted");
    });

    it("reads durations written with grouping commas", () => {
      const [result] = parseJUnitXml('<testsuite name="s"><testcase name="t" time="1,234.5"/></testsuite>');
      expect(result?.durationMs).to.equal(1_234_500);
    });
  });

  describe("bad input", () => {
    it("says where malformed XML breaks, on the given field", () => {
      const error = rejection('<testsuite name="s">\n  <testcase name="t">\n</testsuite>', "files[1]");
      expect(error.field).to.equal("files[1]");
      expect(error.rule).to.match(/line 3, column \d+/);
    });

    it("rejects an empty document and plain text", () => {
      expect(rejection("   ").rule).to.contain("non-empty");
      expect(rejection("this is not xml").rule).to.match(/malformed XML/);
    });

    it("rejects XML that is not a JUnit report", () => {
      const error = rejection("<html><body>502 Bad Gateway</body></html>");
      expect(error.field).to.equal("junit");
      expect(error.rule).to.contain("not a JUnit report").and.contain("<html>");
    });

    it("leaves out a test case without a name attribute, says why, and keeps the others", () => {
      const report = readJUnitReport(
        '<testsuite name="api"><testcase classname="A"/><testcase classname="A" name="ok"/></testsuite>',
      );
      expect(report.results.map((r) => r.name)).to.deep.equal(["ok"]);
      expect(report.ignored).to.deep.equal([
        { field: "junit", suite: "api", classname: "A", reason: "the <testcase> has no name attribute" },
      ]);
    });

    it("keeps a test case with name=\"\" (jest-junit writes it for test(''))", () => {
      const results = parseJUnitXml('<testsuite name="api"><testcase classname="A" name=""/></testsuite>');
      expect(results).to.have.length(1);
      expect(results[0]).to.include({ name: "", parent: "api", classname: "A", outcome: "passed" });
    });

    it("refuses entity expansion: a DOCTYPE is rejected before parsing", () => {
      const laughs = [
        '<?xml version="1.0"?>',
        "<!DOCTYPE lolz [",
        '  <!ENTITY lol "lol">',
        '  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">',
        '  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">',
        "]>",
        '<testsuite name="&lol3;"><testcase name="&lol3;"/></testsuite>',
      ].join("\n");
      expect(rejection(laughs).rule).to.contain("DOCTYPE").and.contain("line 2, column 1");
      const external = '<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite name="&x;"/>';
      expect(rejection(external).rule).to.contain("DOCTYPE");
    });

    it("rejects absurdly deep nesting instead of recursing without bound", () => {
      const depth = 5000;
      const xml = `<testsuites>${"<testsuite>".repeat(depth)}${"</testsuite>".repeat(depth)}</testsuites>`;
      expect(rejection(xml).rule).to.match(/malformed XML/);
    });

    it("keeps a DOCTYPE-looking string inside CDATA as text", () => {
      const xml =
        '<testsuite name="s"><testcase name="renders page"><failure><![CDATA[<!DOCTYPE html> expected]]></failure></testcase></testsuite>';
      const [result] = parseJUnitXml(xml);
      expect(result?.failure?.message).to.equal("<!DOCTYPE html> expected");
    });
  });
});
