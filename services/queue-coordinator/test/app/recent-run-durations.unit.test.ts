import { expect } from "chai";
import { RECENT_RUNS, recentRunDurationsAfter } from "../../src/app/recent-run-durations.js";
import type { TestRun } from "../../src/domain/index.js";
import type { QueueDocument } from "../../src/store/queue-repository.js";

const run = (id: string, kind: TestRun["kind"], startedAt: number, status: TestRun["status"] = "RUNNING") =>
  ({ id, kind, startedAt, status }) as TestRun;

const docWith = (runs: TestRun[], kept?: number[]) =>
  ({
    planner: { runs: Object.fromEntries(runs.map((r) => [r.id, r])) },
    ...(kept ? { recentRunDurationsMs: kept } : {}),
  }) as unknown as QueueDocument;

describe("the recent run durations a queue keeps for merge-time estimates", () => {
  const finished = (runId: string, outcome: "PASSED" | "FAILED" | "MERGE_CONFLICT") =>
    ({ type: "TEST_RUN_FINISHED", runId, outcome }) as const;

  it("adds a main run's duration, newest first, when it passes or fails", () => {
    const doc = docWith([run("a", "main", 1_000), run("b", "main", 2_000)], [5_000]);
    expect(recentRunDurationsAfter(doc, finished("a", "PASSED"), 61_000)).to.deep.equal([60_000, 5_000]);
    expect(recentRunDurationsAfter(doc, finished("b", "FAILED"), 32_000)).to.deep.equal([30_000, 5_000]);
  });

  it("ignores bisection runs, runs that tested nothing, runs already settled, and other events", () => {
    const doc = docWith([run("m", "main", 0), run("s", "bisection", 0), run("p", "main", 0, "PASSED")], [7]);
    expect(recentRunDurationsAfter(doc, finished("s", "PASSED"), 10)).to.deep.equal([7]);
    expect(recentRunDurationsAfter(doc, finished("m", "MERGE_CONFLICT"), 10)).to.deep.equal([7]);
    expect(recentRunDurationsAfter(doc, finished("p", "PASSED"), 10)).to.deep.equal([7]);
    expect(recentRunDurationsAfter(doc, finished("gone", "PASSED"), 10)).to.deep.equal([7]);
    expect(recentRunDurationsAfter(doc, { type: "TIME_PASSED" }, 10)).to.deep.equal([7]);
    expect(recentRunDurationsAfter(docWith([]), { type: "TIME_PASSED" }, 10)).to.deep.equal([]);
  });

  it(`keeps the latest ${RECENT_RUNS}`, () => {
    const kept = Array.from({ length: RECENT_RUNS }, (_, i) => i);
    const next = recentRunDurationsAfter(docWith([run("a", "main", 0)], kept), finished("a", "PASSED"), 999);
    expect(next).to.have.length(RECENT_RUNS);
    expect(next[0]).to.equal(999);
    expect(next.at(-1)).to.equal(RECENT_RUNS - 2);
  });
});
