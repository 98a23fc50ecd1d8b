import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { shortenText } from "./shorten-text.js";
import { SUITE_PATH_SEPARATOR } from "./test-case-result.js";
import type {
  FailureDetail,
  IgnoredTestCase,
  TestAttempt,
  TestCaseResult,
  TestOutcome,
} from "./test-case-result.js";
import { parseXmlDocument } from "./xml-document.js";
import type { XmlElement } from "./xml-document.js";

export interface ParseJUnitOptions {
  /** Names the document in errors as the request does (e.g. "junit[2]"); defaults to "junit". */
  field?: string;
  /** Longest system-out / system-err kept per case. */
  maxOutputChars?: number;
  /** Longest failure body kept per failure. */
  maxFailureBodyChars?: number;
}

const DEFAULTS = { field: "junit", maxOutputChars: 4096, maxFailureBodyChars: 8192 };
const MAX_MESSAGE_CHARS = 1024;

/** The results of a report, and the test cases left out of it with the reason. */
export interface JUnitReport {
  results: TestCaseResult[];
  ignored: IgnoredTestCase[];
}

/** The test cases of a report, without those that could not be read (see readJUnitReport). */
export function parseJUnitXml(xml: string, options: ParseJUnitOptions = {}): TestCaseResult[] {
  return readJUnitReport(xml, options).results;
}

/**
 * Reads a JUnit XML report, as written by Surefire, Gradle, pytest, jest-junit, mocha, gotestsum,
 * Bazel, googletest or PHPUnit, into a flat list of test case results. One odd test case never costs the
 * rest of the report: it is left out and listed in `ignored` with the reason.
 * Throws InvalidArgumentError (on `options.field`) for malformed XML or a document that is not JUnit.
 */
export function readJUnitReport(xml: string, options: ParseJUnitOptions = {}): JUnitReport {
  const settings = { ...DEFAULTS, ...options };
  const document = parseXmlDocument(xml, settings.field);
  const roots = elementNames(document);
  const rootName = roots[0];
  if (roots.length !== 1 || rootName === undefined) {
    throw new InvalidArgumentError(settings.field, "must have exactly one root element");
  }
  const collector = new CaseCollector();
  const reader = new ReportReader(settings, collector);
  if (rootName === "testsuites") {
    // The <testsuites> name is a report label ("jest tests", "AllTests"), not part of a test's path.
    const root = asElement(document[rootName]);
    for (const suite of children(root, "testsuite")) reader.readSuite(suite, [], undefined);
    for (const testcase of children(root, "testcase")) reader.readCase(testcase, [], undefined, undefined);
  } else if (rootName === "testsuite") {
    for (const suite of children(document, "testsuite")) reader.readSuite(suite, [], undefined);
  } else {
    throw new InvalidArgumentError(
      settings.field,
      `is not a JUnit report: the root element must be <testsuites> or <testsuite>, found <${rootName}>`,
    );
  }
  return { results: collector.results(), ignored: collector.ignored };
}

class ReportReader {
  constructor(
    private readonly settings: typeof DEFAULTS,
    private readonly collector: CaseCollector,
  ) {}

  readSuite(suite: XmlElement, path: readonly string[], inheritedFile: string | undefined): void {
    const name = attribute(suite, "name");
    const suitePath = name ? [...path, name] : path;
    const file = attribute(suite, "file") ?? attribute(suite, "filepath") ?? inheritedFile;
    const cases = children(suite, "testcase");
    // Bazel and some wrappers write the only case's log at suite level; give it to that case.
    const suiteOutput = cases.length === 1 ? this.outputs(suite) : undefined;
    for (const testcase of cases) this.readCase(testcase, suitePath, file, suiteOutput);
    for (const nested of children(suite, "testsuite")) this.readSuite(nested, suitePath, file);
  }

  readCase(
    testcase: XmlElement,
    suitePath: readonly string[],
    suiteFile: string | undefined,
    suiteOutput: { systemOut?: string; systemErr?: string } | undefined,
  ): void {
    // name="" is valid JUnit (jest-junit writes it for test('')): the test keeps its empty name, and its id
    // stays stable through the suite, class and file around it.
    const name = attribute(testcase, "name")?.trim();
    const parent = suitePath.join(SUITE_PATH_SEPARATOR);
    const classname = (attribute(testcase, "classname") ?? attribute(testcase, "class"))?.trim() || undefined;
    if (name === undefined) {
      this.collector.ignore({
        field: this.settings.field,
        suite: parent,
        classname: classname ?? "",
        reason: "the <testcase> has no name attribute",
      });
      return;
    }
    const file = attribute(testcase, "file") ?? suiteFile;
    const line = Number.parseInt(attribute(testcase, "line") ?? "", 10);
    const attempts = this.attempts(testcase);
    const skipped = children(testcase, "skipped")[0];
    const own = this.outputs(testcase);
    const result: TestCaseResult = {
      name,
      parent,
      durationMs: durationMs(attribute(testcase, "time")),
      outcome: verdict(attempts),
      attempts,
      ...(classname !== undefined && { classname }),
      ...(file !== undefined && { file }),
      ...(Number.isFinite(line) && { line }),
      ...(skipped !== undefined && {
        skippedMessage: attribute(skipped, "message") ?? (text(skipped) || undefined),
      }),
      ...suiteOutput,
      ...own,
    };
    if (result.skippedMessage === undefined) delete result.skippedMessage;
    this.collector.add(result);
  }

  /**
   * <failure>/<error> describe the first run; Surefire and Gradle add rerunFailure/rerunError for
   * reruns that failed again, or flakyFailure/flakyError for failed runs before a passing one.
   */
  private attempts(testcase: XmlElement): TestAttempt[] {
    const failure = children(testcase, "failure")[0];
    const error = children(testcase, "error")[0];
    if (failure !== undefined || error !== undefined) {
      const first: TestAttempt =
        failure !== undefined
          ? { outcome: "failed", failure: this.detail(failure) }
          : { outcome: "error", failure: this.detail(error as XmlElement) };
      return [first, ...this.failedAttempts(testcase, "rerunFailure", "rerunError")];
    }
    const flaky = this.failedAttempts(testcase, "flakyFailure", "flakyError");
    if (flaky.length > 0) return [...flaky, { outcome: "passed" }];
    const notRun = attribute(testcase, "status") === "notrun"; // googletest's DISABLED_ tests
    if (children(testcase, "skipped").length > 0 || notRun) return [{ outcome: "skipped" }];
    return [{ outcome: "passed" }];
  }

  private failedAttempts(testcase: XmlElement, failureTag: string, errorTag: string): TestAttempt[] {
    return [
      ...children(testcase, failureTag).map((el): TestAttempt => ({
        outcome: "failed",
        failure: this.detail(el),
      })),
      ...children(testcase, errorTag).map((el): TestAttempt => ({
        outcome: "error",
        failure: this.detail(el),
      })),
    ];
  }

  private detail(element: XmlElement): FailureDetail {
    // Surefire's rerun and flaky elements nest the trace in <stackTrace>; the others hold it as text.
    const raw = text(element) || text(asElement(element["stackTrace"]));
    const body = raw ? shortenText(raw, this.settings.maxFailureBodyChars) : undefined;
    const message = attribute(element, "message")?.trim() || firstLine(raw);
    return {
      message: message ? shortenText(message, MAX_MESSAGE_CHARS) : undefined,
      type: attribute(element, "type")?.trim() || undefined,
      body,
    };
  }

  private outputs(element: XmlElement): { systemOut?: string; systemErr?: string } {
    if (element["system-out"] === undefined && element["system-err"] === undefined) return NO_OUTPUT;
    const out = children(element, "system-out").map(text).filter(hasContent).join("\n");
    const err = children(element, "system-err").map(text).filter(hasContent).join("\n");
    const max = this.settings.maxOutputChars;
    return {
      ...(out && { systemOut: shortenText(out, max) }),
      ...(err && { systemErr: shortenText(err, max) }),
    };
  }
}

/**
 * Gradle without mergeReruns and gotestsum --rerun-fails write each rerun as another <testcase>
 * with the same identity; those are folded into one result with several attempts.
 */
class CaseCollector {
  private readonly byIdentity = new Map<string, TestCaseResult>();
  readonly ignored: IgnoredTestCase[] = [];

  ignore(testCase: IgnoredTestCase): void {
    this.ignored.push(testCase);
  }

  add(result: TestCaseResult): void {
    // NUL cannot occur in XML text, so it keeps the parts apart (cheaper than a JSON key per case).
    const key = `${result.parent}\u0000${result.classname ?? ""}\u0000${result.name}\u0000${result.file ?? ""}`;
    const existing = this.byIdentity.get(key);
    if (existing === undefined) {
      this.byIdentity.set(key, result);
      return;
    }
    const attempts = [...existing.attempts, ...result.attempts];
    const merged: TestCaseResult = {
      ...existing,
      attempts,
      outcome: verdict(attempts),
      durationMs: existing.durationMs + result.durationMs,
      systemOut: existing.systemOut ?? result.systemOut,
      systemErr: existing.systemErr ?? result.systemErr,
    };
    if (merged.systemOut === undefined) delete merged.systemOut;
    if (merged.systemErr === undefined) delete merged.systemErr;
    this.byIdentity.set(key, merged);
  }

  results(): TestCaseResult[] {
    return [...this.byIdentity.values()].map((result) => {
      if (result.failure !== undefined || result.outcome === "passed" || result.outcome === "skipped")
        return result;
      const decisive = [...result.attempts].reverse().find((attempt) => attempt.outcome === result.outcome);
      return decisive?.failure ? { ...result, failure: decisive.failure } : result;
    });
  }
}

const NO_OUTPUT: { systemOut?: string; systemErr?: string } = Object.freeze({});

const SEVERITY: Record<TestOutcome, number> = { skipped: 0, error: 1, failed: 2, passed: 3 };

/** A pass in any attempt wins (the case passed on rerun); otherwise failed > error > skipped. */
function verdict(attempts: readonly TestAttempt[]): TestOutcome {
  let best: TestOutcome = "skipped";
  for (const { outcome } of attempts) if (SEVERITY[outcome] > SEVERITY[best]) best = outcome;
  return best;
}

function durationMs(seconds: string | undefined): number {
  // Some Surefire versions format times with grouping commas ("1,234.5").
  const value = Number.parseFloat((seconds ?? "").replaceAll(",", ""));
  return Number.isFinite(value) && value > 0 ? Math.round(value * 1000 * 1000) / 1000 : 0;
}

function elementNames(element: XmlElement): string[] {
  return Object.keys(element).filter((key) => !key.startsWith("#") && !key.startsWith("@_"));
}

function asElement(value: unknown): XmlElement {
  if (typeof value === "string") return { "#text": value };
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as XmlElement;
  return {};
}

const NO_CHILDREN: readonly XmlElement[] = Object.freeze([]);

function children(element: XmlElement, tag: string): readonly XmlElement[] {
  const value = element[tag];
  if (value === undefined) return NO_CHILDREN;
  return (Array.isArray(value) ? value : [value]).map(asElement);
}

function attribute(element: XmlElement, name: string): string | undefined {
  const value = element[`@_${name}`];
  return typeof value === "string" ? value : undefined;
}

function text(element: XmlElement): string {
  const value = element["#text"];
  return typeof value === "string" ? value.trim() : "";
}

// pytest's xunit1 logging writes section headers even when nothing was captured.
const PYTEST_CAPTURE_HEADER = /^-+ Captured (?:Log|Out|Err) -+$/gm;

function hasContent(output: string): boolean {
  return output.replace(PYTEST_CAPTURE_HEADER, "").trim().length > 0;
}

function firstLine(body: string): string | undefined {
  return body
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line.length > 0);
}
