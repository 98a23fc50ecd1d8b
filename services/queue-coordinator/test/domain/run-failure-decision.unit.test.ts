import { expect } from "chai";
import { boundRunTestFailures, MAX_FAILED_TESTS_PER_RUN } from "@mainline/contract";
import {
  decideRunFailure,
  type FailedTestsKnowledge,
  type RunFailureContext,
  type RunTestFailures,
  type TestAwareSettings,
  type TestKnowledge,
} from "../../src/domain/index.js";

const QUARANTINED = { id: "0b6e3c8e-6e8f-5a44-9b1a-1d2c3e4f5a61", name: "api > login retries" };
const FLAKY = { id: "1c7f4d9f-7f90-5b55-8c2b-2e3d4f5a6b72", name: "web > renders the queue" };
const BROKEN = { id: "2d805ea0-8001-5c66-9d3c-3f4e5a6b7c83", name: "db > migrates" };
const REAL = { id: "3e916fb1-9112-5d77-ae4d-405f6b7c8d94", name: "merge > squashes" };

const FOLLOW_REPO: TestAwareSettings = {
  ignoreQuarantinedTests: null,
  retryKnownFlakyTests: null,
  holdOnBrokenTarget: null,
};
const FIRST_RUN: RunFailureContext = { outcome: "FAILED", isRetry: false, now: 5_000 };

function known(status: TestKnowledge["status"], extra: Partial<TestKnowledge> = {}): TestKnowledge {
  return { status, quarantined: false, statusSince: null, failedOnTargetAt: null, ...extra };
}

const KNOWLEDGE: FailedTestsKnowledge = {
  quarantiningEnabled: true,
  tests: {
    [QUARANTINED.id]: known("flaky", { quarantined: true }),
    [FLAKY.id]: known("flaky"),
    [BROKEN.id]: known("broken", { statusSince: 1_000 }),
    [REAL.id]: known("healthy"),
  },
};

function failed(...tests: { id: string; name: string }[]): RunTestFailures {
  return { failed: tests, truncated: false };
}

describe("decideRunFailure: what a failed queue run means, per test (issue 26)", () => {
  it("a run without test results fails as today", () => {
    expect(decideRunFailure(undefined, KNOWLEDGE, FOLLOW_REPO, FIRST_RUN)).to.deep.equal({
      kind: "FAIL_AS_TODAY",
    });
    expect(decideRunFailure(failed(), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN)).to.deep.equal({
      kind: "FAIL_AS_TODAY",
    });
  });

  it("without knowledge (flaky-analytics down or late) the run fails as today, never on a guess", () => {
    expect(decideRunFailure(failed(QUARANTINED), null, FOLLOW_REPO, FIRST_RUN).kind).to.equal(
      "FAIL_AS_TODAY",
    );
    expect(decideRunFailure(failed(FLAKY), undefined, FOLLOW_REPO, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
  });

  it("a run whose every failed test is quarantined counts as passed, naming the ignored tests", () => {
    expect(decideRunFailure(failed(QUARANTINED), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN)).to.deep.equal({
      kind: "COUNT_AS_PASSED",
      ignored: [QUARANTINED],
    });
  });

  it("a quarantined failure beside a real one fails as today", () => {
    expect(decideRunFailure(failed(QUARANTINED, REAL), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN).kind).to.equal(
      "FAIL_AS_TODAY",
    );
  });

  it("a list cut at the bound never counts as passed: an unnamed failure may be real", () => {
    const many = Array.from({ length: MAX_FAILED_TESTS_PER_RUN + 1 }, () => QUARANTINED);
    const ids = many.map((t, i) => ({ ...t, id: `${t.id.slice(0, -3)}${String(i).padStart(3, "0")}` }));
    const bounded = boundRunTestFailures(ids.slice(0, MAX_FAILED_TESTS_PER_RUN + 1));
    expect(bounded.failed).to.have.length(MAX_FAILED_TESTS_PER_RUN);
    expect(bounded.truncated).to.equal(true);
    const all = {
      ...KNOWLEDGE,
      tests: Object.fromEntries(ids.map((t) => [t.id, known("flaky", { quarantined: true })])),
    };
    expect(decideRunFailure(bounded, all, FOLLOW_REPO, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
  });

  it("a known flaky test alone retries the run in place once", () => {
    expect(decideRunFailure(failed(FLAKY), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN)).to.deep.equal({
      kind: "RETRY_IN_PLACE",
      flaky: [FLAKY],
    });
    // Quarantined failures beside it are ignored, so the flaky one still earns its retry.
    expect(decideRunFailure(failed(QUARANTINED, FLAKY), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN).kind).to.equal(
      "RETRY_IN_PLACE",
    );
  });

  it("a run already retried once is not retried again", () => {
    const retry = { ...FIRST_RUN, isRetry: true };
    expect(decideRunFailure(failed(FLAKY), KNOWLEDGE, FOLLOW_REPO, retry).kind).to.equal("FAIL_AS_TODAY");
  });

  it("a flaky failure beside a real one fails as today", () => {
    expect(decideRunFailure(failed(FLAKY, REAL), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN).kind).to.equal(
      "FAIL_AS_TODAY",
    );
  });

  it("a test broken on the target blames no PR, even beside other failures, and says since when", () => {
    expect(decideRunFailure(failed(REAL, BROKEN), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN)).to.deep.equal({
      kind: "TARGET_BROKEN",
      test: BROKEN,
      since: 1_000,
    });
  });

  it("a test that failed on the target's own run is the target's, whatever its status", () => {
    const k = {
      ...KNOWLEDGE,
      tests: { ...KNOWLEDGE.tests, [REAL.id]: known("healthy", { failedOnTargetAt: 4_000 }) },
    };
    expect(decideRunFailure(failed(REAL), k, FOLLOW_REPO, FIRST_RUN)).to.deep.equal({
      kind: "TARGET_BROKEN",
      test: REAL,
      since: 4_000,
    });
  });

  it("a broken test with no date is broken since now", () => {
    const k = { ...KNOWLEDGE, tests: { [BROKEN.id]: known("broken") } };
    expect(decideRunFailure(failed(BROKEN), k, FOLLOW_REPO, FIRST_RUN)).to.include({
      kind: "TARGET_BROKEN",
      since: 5_000,
    });
  });

  it("unknown and healthy tests fail as today", () => {
    const stranger = { id: "4fa270c2-a223-5e88-bf5e-516a7c8d9ea5", name: "new > test" };
    expect(decideRunFailure(failed(stranger), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN).kind).to.equal(
      "FAIL_AS_TODAY",
    );
    expect(decideRunFailure(failed(REAL), KNOWLEDGE, FOLLOW_REPO, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
  });

  it("only failed tests are decided: a timeout, conflict or broken build fails as today", () => {
    for (const outcome of ["TIMED_OUT", "MERGE_CONFLICT", "BUILD_FAILED"] as const) {
      expect(
        decideRunFailure(failed(QUARANTINED), KNOWLEDGE, FOLLOW_REPO, { ...FIRST_RUN, outcome }).kind,
      ).to.equal("FAIL_AS_TODAY");
    }
  });

  it("the settings follow the repository's quarantining when null, and each switch turns its branch off", () => {
    const off = { ...KNOWLEDGE, quarantiningEnabled: false };
    expect(decideRunFailure(failed(QUARANTINED), off, FOLLOW_REPO, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
    expect(decideRunFailure(failed(FLAKY), off, FOLLOW_REPO, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
    expect(decideRunFailure(failed(BROKEN), off, FOLLOW_REPO, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
    const allOn = { ignoreQuarantinedTests: true, retryKnownFlakyTests: true, holdOnBrokenTarget: true };
    expect(decideRunFailure(failed(QUARANTINED), off, allOn, FIRST_RUN).kind).to.equal("COUNT_AS_PASSED");
    const noIgnore = { ...FOLLOW_REPO, ignoreQuarantinedTests: false };
    // Not ignored, the quarantined test counts as the flaky test it is.
    expect(decideRunFailure(failed(QUARANTINED), KNOWLEDGE, noIgnore, FIRST_RUN).kind).to.equal(
      "RETRY_IN_PLACE",
    );
    const noRetry = { ...FOLLOW_REPO, retryKnownFlakyTests: false };
    expect(decideRunFailure(failed(FLAKY), KNOWLEDGE, noRetry, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
    const noHold = { ...FOLLOW_REPO, holdOnBrokenTarget: false };
    expect(decideRunFailure(failed(BROKEN), KNOWLEDGE, noHold, FIRST_RUN).kind).to.equal("FAIL_AS_TODAY");
  });

  it("bounding drops malformed ids and duplicates and cuts long names", () => {
    const bounded = boundRunTestFailures([
      { id: "not-a-uuid", name: "x" },
      FLAKY,
      FLAKY,
      { ...REAL, name: "n".repeat(5000) },
    ]);
    expect(bounded.failed.map((t) => t.id)).to.deep.equal([FLAKY.id, REAL.id]);
    expect(bounded.failed[1]?.name).to.have.length(1024);
    expect(bounded.truncated).to.equal(true);
  });
});
