import { expect } from "chai";
import {
  DEFAULT_STATUS_SETTINGS,
  EMPTY_EVIDENCE,
  judgeStatus,
  observeTest,
} from "../../../src/domain/status/index.js";
import { resolveStatusSettings } from "../../../src/api/command-parser.js";
import type {
  StatusSettings,
  TestEvidence,
  TestObservation,
  TestStatus,
} from "../../../src/domain/status/index.js";
import type { TestOutcome } from "@mainline/junit";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2025, 2, 10, 12, 0, 0);

/** A test's history, replayed through the status rules the way the service applies them. */
class TestHistory {
  evidence: TestEvidence = EMPTY_EVIDENCE;
  status: TestStatus | undefined;
  changes: TestStatus[] = [];
  private commit = 0;

  constructor(private readonly settings: StatusSettings = DEFAULT_STATUS_SETTINGS) {}

  run(at: number, attempts: TestOutcome[], where: Partial<TestObservation> = {}): TestStatus {
    const observation: TestObservation = {
      at,
      commitSha: where.commitSha ?? `c${++this.commit}`,
      context: where.context ?? "ci",
      onTargetBranch: where.onTargetBranch ?? true,
      attempts,
    };
    const next = observeTest({ evidence: this.evidence, status: this.status }, observation, this.settings);
    this.evidence = next.evidence;
    this.status = next.status;
    if (next.changed) this.changes.push(next.status);
    return next.status;
  }

  /** Target-branch runs one hour apart from `start`, "F" failed, "P" passed. */
  runs(start: number, pattern: string): TestStatus | undefined {
    [...pattern].forEach((mark, i) => this.run(start + i * HOUR, mark === "F" ? ["failed"] : ["passed"]));
    return this.status;
  }

  judgeAt(now: number) {
    const decision = judgeStatus(this.status, this.evidence, this.settings, now);
    this.status = decision.status;
    return decision;
  }
}

describe("test status rules", () => {
  it("a new, passing test is healthy from its first run, which is not a change", () => {
    const history = new TestHistory();
    expect(history.run(T0, ["passed"])).to.deep.include({ value: "healthy", timestamp: T0 });
    expect(history.changes).to.be.empty;
  });

  it("fails then passes on retry in one run: flaky, with the commit in the reason", () => {
    const history = new TestHistory();
    history.run(T0, ["passed"]);
    const status = history.run(T0 + HOUR, ["failed", "passed"], {
      commitSha: "9fceb02d0ae598e95dc970b74767f19372d61af8",
      onTargetBranch: false,
    });
    expect(status).to.deep.equal({
      value: "flaky",
      reason: "failed and then passed on retry on commit 9fceb02",
      timestamp: T0 + HOUR,
    });
    expect(history.changes).to.have.length(1);
  });

  it("a failed job re-run green on the same commit is flaky", () => {
    const history = new TestHistory();
    history.run(T0, ["failed"], { commitSha: "abc", onTargetBranch: false });
    expect(history.status?.value).to.equal("healthy");
    history.run(T0 + HOUR, ["passed"], { commitSha: "abc", onTargetBranch: false });
    expect(history.status).to.deep.include({
      value: "flaky",
      reason: "failed and passed on the same commit abc",
    });
  });

  it("failures on pull-request branches alone say nothing: the PR may have broken the test", () => {
    const history = new TestHistory();
    for (let i = 0; i < 20; i++) history.run(T0 + i * HOUR, ["failed"], { onTargetBranch: false });
    expect(history.status?.value).to.equal("healthy");
  });

  it("a high failure rate on the target branch, failures scattered between passes, is flaky", () => {
    const history = new TestHistory();
    const status = history.runs(T0, "PPFPPPFPPF");
    expect(status).to.deep.include({
      value: "flaky",
      reason: "failed 3 of 10 runs (30%) on the target branch in the last 7 days",
    });
  });

  it("needs the minimum number of runs before trusting the rate", () => {
    const history = new TestHistory();
    expect(history.runs(T0, "PFPFP")?.value).to.equal("healthy");
  });

  it("a low failure rate stays healthy", () => {
    const history = new TestHistory();
    expect(history.runs(T0, "PPPPPPPPPFPPPPPPPPPPPPFPPP")?.value).to.equal("healthy");
  });

  it("fails the last 5 target-branch runs: broken, which outranks flaky", () => {
    const history = new TestHistory();
    history.run(T0, ["failed", "passed"]);
    expect(history.status?.value).to.equal("flaky");
    const status = history.runs(T0 + HOUR, "FFFFF");
    expect(status).to.deep.include({
      value: "broken",
      reason: "failed the last 5 runs on the target branch",
      timestamp: T0 + 5 * HOUR,
    });
  });

  it("a broken test that passes again is no longer broken, and a fixed breakage is not flakiness", () => {
    const history = new TestHistory();
    history.runs(T0, "PPPPPFFFFF");
    expect(history.status?.value).to.equal("broken");
    history.runs(T0 + 10 * HOUR, "PPPPP");
    expect(history.status).to.deep.include({
      value: "healthy",
      reason: "passed again after failing consistently",
    });
    expect(history.changes.map((s) => s.value)).to.deep.equal(["broken", "healthy"]);
  });

  it("recovers to healthy after 7 quiet days, dated when the window ended", () => {
    const history = new TestHistory();
    history.run(T0, ["failed", "passed"]);
    expect(history.judgeAt(T0 + 6 * DAY)).to.deep.include({ changed: false });
    expect(history.status?.value).to.equal("flaky");
    const decision = history.judgeAt(T0 + 9 * DAY);
    expect(decision.changed).to.be.true;
    expect(decision.status).to.deep.equal({
      value: "healthy",
      reason: "no flaky signal for 7 days",
      timestamp: T0 + 7 * DAY,
    });
  });

  it("a new flaky signal restarts the quiet window without changing the status timestamp", () => {
    const history = new TestHistory();
    history.run(T0, ["failed", "passed"]);
    history.run(T0 + 5 * DAY, ["error", "passed"]);
    expect(history.judgeAt(T0 + 9 * DAY)).to.deep.include({ changed: false });
    expect(history.status?.timestamp).to.equal(T0);
    expect(history.judgeAt(T0 + 12 * DAY + HOUR).status.value).to.equal("healthy");
  });

  it("uses the repository's own windows and thresholds", () => {
    const settings = resolveStatusSettings({ quietWindowHours: 24, brokenAfterConsecutiveFailures: 2 });
    const history = new TestHistory(settings);
    history.run(T0, ["failed", "passed"]);
    expect(history.judgeAt(T0 + 25 * HOUR).status.value).to.equal("healthy");
    expect(history.runs(T0 + 2 * DAY, "FF")?.value).to.equal("broken");
  });

  describe("spec rule 15", () => {
    it("bisection runs are never evidence", () => {
      const history = new TestHistory();
      for (let i = 0; i < 10; i++) history.run(T0 + i * HOUR, ["failed", "passed"], { context: "bisection" });
      for (let i = 0; i < 10; i++)
        history.run(T0 + i * HOUR, ["failed"], { context: "bisection", commitSha: "x" });
      expect(history.status?.value).to.equal("healthy");
      expect(history.evidence).to.deep.equal(EMPTY_EVIDENCE);
    });

    it("a merge-queue failure whose commit then passes on the target branch is not flakiness", () => {
      const history = new TestHistory();
      history.run(T0, ["failed"], { context: "merge_queue", commitSha: "same", onTargetBranch: false });
      history.run(T0 + HOUR, ["passed"], { context: "ci", commitSha: "same", onTargetBranch: true });
      expect(history.status?.value).to.equal("healthy");
    });

    it("merge-queue failures that persist count toward broken, until the target branch passes", () => {
      const history = new TestHistory();
      for (let i = 0; i < 5; i++) history.run(T0 + i * HOUR, ["failed"], { context: "merge_queue" });
      expect(history.status).to.deep.include({
        value: "broken",
        reason: "failed 5 merge-queue runs in a row without passing on the target branch",
      });
      history.run(T0 + 6 * HOUR, ["passed"]);
      expect(history.status?.value).to.equal("healthy");
    });
  });

  it("keeps its evidence bounded however many results arrive", () => {
    const history = new TestHistory();
    for (let i = 0; i < 1000; i++) history.run(T0 + i * HOUR, [i % 3 === 0 ? "failed" : "passed"]);
    expect(history.evidence.targetBranchRuns.at).to.have.length(
      DEFAULT_STATUS_SETTINGS.targetBranchSampleSize,
    );
    expect(history.evidence.recentCommits.sha).to.have.length(DEFAULT_STATUS_SETTINGS.recentCommitsTracked);
    expect(JSON.stringify(history.evidence).length).to.be.lessThan(8000);
  });

  it("orders late uploads by run time, so the latest runs decide broken", () => {
    const history = new TestHistory();
    history.runs(T0 + 10 * HOUR, "FFFFF");
    expect(history.status?.value).to.equal("broken");
    history.run(T0, ["passed"]);
    expect(history.status?.value).to.equal("broken");
  });

  it("ignores a run whose test was skipped", () => {
    const history = new TestHistory();
    history.run(T0, ["skipped"]);
    expect(history.evidence).to.deep.equal(EMPTY_EVIDENCE);
  });
});
