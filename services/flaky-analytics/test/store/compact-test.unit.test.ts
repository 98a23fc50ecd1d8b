import { expect } from "chai";
import {
  DEFAULT_STATUS_SETTINGS,
  EMPTY_EVIDENCE,
  observeTest,
  recentRunList,
} from "../../src/domain/index.js";
import type { TestObservation } from "../../src/domain/index.js";
import { compactTest, StringPool } from "../../src/store/compact-test.js";
import type { TestDocument } from "../../src/store/documents.js";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);

function stored(evidence: unknown): TestDocument {
  return {
    _id: "t1",
    org: "acme",
    repoKey: "github.com/acme/widgets",
    repo: { host: "github.com", owner: "acme", name: "widgets" },
    name: "t1",
    variant: "",
    status: { value: "healthy", reason: "no flaky or broken signal", timestamp: T0 },
    evidence: evidence as TestDocument["evidence"],
    buckets: [],
    failureGroups: [],
    failureTimes: [],
    firstSeenAt: T0,
    lastSeenAt: T0,
  };
}

const failedOnMain = (at: number, commitSha: string): TestObservation => ({
  at,
  commitSha,
  context: "ci",
  onTargetBranch: true,
  attempts: ["failed"],
});

describe("a test read back from a snapshot", () => {
  it("turns the evidence snapshots of before stored (an object per run and per commit) into the same evidence", () => {
    // Four failed target-branch runs stored the old way, then the same four through today's rules.
    const legacy = {
      targetBranchRuns: [0, 1, 2, 3].map((i) => ({ at: T0 + i * HOUR, failed: true })),
      recentCommits: [0, 1, 2, 3].map((i) => ({
        sha: `c${i}`,
        at: T0 + i * HOUR,
        failed: true,
        passed: false,
      })),
      mergeQueueFailureStreak: 0,
    };
    let today = { ...EMPTY_EVIDENCE };
    for (let i = 0; i < 4; i++) {
      today = observeTest(
        { evidence: today, status: undefined },
        failedOnMain(T0 + i * HOUR, `c${i}`),
        DEFAULT_STATUS_SETTINGS,
      ).evidence;
    }
    const read = compactTest(stored(legacy), new StringPool());
    expect(read.evidence).to.deep.equal(today);

    // A fifth failure makes both broken (five in a row), and a pass on a seen commit makes both flaky.
    const fifth = failedOnMain(T0 + 4 * HOUR, "c4");
    const fromLegacy = observeTest(
      { evidence: read.evidence, status: read.status },
      fifth,
      DEFAULT_STATUS_SETTINGS,
    );
    expect(fromLegacy.status).to.include({
      value: "broken",
      reason: "failed the last 5 runs on the target branch",
    });
    const pass: TestObservation = { ...fifth, at: T0 + 5 * HOUR, commitSha: "c2", attempts: ["passed"] };
    const after = observeTest(
      { evidence: fromLegacy.evidence, status: fromLegacy.status },
      pass,
      DEFAULT_STATUS_SETTINGS,
    );
    expect(after.evidence.lastFlakySignal?.reason).to.equal("failed and passed on the same commit c2");
  });

  it("turns the recent runs snapshots of before stored (an object per run) into the same runs", () => {
    const runs = [
      { at: T0, outcome: "failed", context: "ci", branch: "main", commitSha: "c1" },
      {
        at: T0 + HOUR,
        outcome: "flaky",
        context: "merge_queue",
        branch: "mq/2",
        commitSha: "c2",
        prNumber: 12,
      },
    ];
    const read = compactTest({ ...stored(EMPTY_EVIDENCE), recentRuns: runs as never }, new StringPool());
    expect(recentRunList(read.recentRuns)).to.deep.equal(runs);
  });
});
