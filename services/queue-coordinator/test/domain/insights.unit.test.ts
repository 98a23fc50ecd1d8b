import { expect } from "chai";
import {
  buildBuckets,
  buildReport,
  countStep,
  createPlannerState,
  percentileMs,
  timeToMergeBin,
  type InsightsHour,
  type InsightsStep,
  type Notice,
  type PlannerState,
  type PullRequestEntry,
} from "../../src/domain/index.js";

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 2, 10); // 10:00 UTC
const at = (hours: number, minutes = 0) => T0 + hours * H + minutes * 60_000;

const state = (patch: Partial<PlannerState> = {}): PlannerState => ({
  ...createPlannerState("main"),
  ...patch,
});
const entry = (n: number, submittedAt: number, readyAt: number): PullRequestEntry =>
  ({
    number: n,
    id: `entry-${n}`,
    submittedAt,
    history: [{ at: readyAt, from: "NOT_READY", to: "PENDING", reason: "READY", runId: null }],
  }) as unknown as PullRequestEntry;
const ended = (n: number, to: "MERGED" | "FAILED", reason: string, when: number, e: PullRequestEntry) =>
  ({
    type: "PR_STATE_CHANGED",
    pr: n,
    entryId: e.id,
    from: "TESTING",
    to,
    reason,
    at: when,
    runId: "run-1",
    batched: false,
    isBisection: false,
    finalEntry: e,
  }) as Notice;

function play(steps: Omit<InsightsStep, "before">[]): InsightsHour[] {
  let open: InsightsHour | null = null;
  let before = state();
  const hours: InsightsHour[] = [];
  for (const step of steps) {
    const counted = countStep(open, { ...step, before });
    hours.push(...counted.sealed);
    open = counted.open;
    before = step.after;
  }
  return open ? [...hours, open] : hours;
}

describe("queue insights: hours counted as the queue's steps commit", () => {
  it("counts merges, failures by reason, runs and time to merge in the hour they happen", () => {
    const one = entry(1, at(0, 5), at(0, 10));
    const two = entry(2, at(0, 5), at(0, 5));
    const hours = play([
      {
        now: at(0, 10),
        after: state({ prs: { 1: one, 2: two } }),
        decisions: [
          {
            type: "START_TEST_RUN",
            runId: "run-1",
            kind: "main",
            batchId: "1",
            lane: "",
            prs: [1, 2],
            dependentPrs: [],
          },
        ],
        notices: [],
      },
      { now: at(0, 40), after: state({ prs: { 1: one, 2: two } }), decisions: [], notices: [] },
      {
        now: at(1, 20),
        after: state(),
        decisions: [],
        notices: [
          ended(1, "MERGED", "MERGED", at(1, 20), one),
          ended(2, "FAILED", "TESTS_FAILED", at(1, 20), two),
        ],
      },
    ]);
    expect(hours.map((h) => h.hour)).to.deep.equal([at(0), at(1)]);
    expect(hours[0]).to.include({ ciRuns: 1, merged: 0, depthMax: 2, depthEnd: 2 });
    expect(hours[1]).to.include({ merged: 1, ciRunsAlone: 2, depthEnd: 0 });
    expect(hours[1]!.failed).to.deep.equal({ TESTS_FAILED: 1 });
    expect(hours[1]!.ttmReady).to.deep.equal({ [timeToMergeBin(70 * 60_000)]: 1 });
    expect(hours[1]!.ttmSubmitted).to.deep.equal({ [timeToMergeBin(75 * 60_000)]: 1 });
  });

  it("counts paused time hour by hour, through hours without a step, and up to now in the hour in progress", () => {
    const hours = play([
      { now: at(0, 30), after: state({ queueState: "PAUSED" }), decisions: [], notices: [] },
      { now: at(3, 15), after: state(), decisions: [], notices: [] },
      { now: at(4, 0), after: state({ queueState: "PAUSED" }), decisions: [], notices: [] },
    ]);
    const report = buildReport([hours], { now: at(4, 20), periodHours: 5, bucketHours: 1 });
    expect(report.map((b) => b.pausedMs / 60_000)).to.deep.equal([30, 60, 60, 15, 20]);
    const daily = buildReport([hours], { now: at(4, 20), periodHours: 24, bucketHours: 24 });
    expect(daily.at(-1)!.pausedMs / 60_000).to.equal(30 + 60 + 60 + 15 + 20);
  });

  it("adds queues up: counts summed, depth the sum of each queue's", () => {
    const a = play([
      { now: at(0, 5), after: state({ prs: { 1: entry(1, at(0), at(0)) } }), decisions: [], notices: [] },
    ]);
    const b = play([
      {
        now: at(0, 7),
        after: state({ prs: { 1: entry(1, at(0), at(0)), 2: entry(2, at(0), at(0)) } }),
        decisions: [],
        notices: [],
      },
    ]);
    const [bucket] = buildReport([a, b], { now: at(0, 30), periodHours: 24, bucketHours: 1 }).slice(-1);
    expect(bucket).to.include({ depthMax: 3, depthEnd: 3 });
  });

  it("adds up the buckets after those already known to the same figures as the whole report", () => {
    const one = entry(1, at(0, 5), at(0, 10));
    const hours = play([
      { now: at(0, 30), after: state({ queueState: "PAUSED", prs: { 1: one } }), decisions: [], notices: [] },
      {
        now: at(3, 15),
        after: state(),
        decisions: [],
        notices: [ended(1, "MERGED", "MERGED", at(3, 15), one)],
      },
      { now: at(5, 40), after: state({ prs: { 1: one } }), decisions: [], notices: [] },
    ]);
    const now = at(6, 10);
    const whole = buildReport([hours], { now, periodHours: 8, bucketHours: 1 });
    for (const known of [1, 3, 4, 7]) {
      const from = whole[known]!.start;
      const tail = buildBuckets(
        [hours.filter((h, i) => h.hour >= from || (hours[i + 1]?.hour ?? Infinity) >= from)],
        {
          from,
          width: H,
          count: whole.length - known,
          now,
        },
      );
      expect(tail, `after ${known} known buckets`).to.deep.equal(whole.slice(known));
    }
  });

  it("reads percentiles from the histogram within 12% of the exact figure", () => {
    const minutes = [3, 5, 8, 13, 21, 34, 55, 89, 144, 233];
    const histogram: Record<string, number> = {};
    for (const m of minutes)
      histogram[timeToMergeBin(m * 60_000)] = (histogram[timeToMergeBin(m * 60_000)] ?? 0) + 1;
    const p50 = percentileMs(histogram, 0.5)! / 60_000;
    const p90 = percentileMs(histogram, 0.9)! / 60_000;
    expect(p50).to.be.within(21 / 1.12, 21 * 1.12);
    expect(p90).to.be.within(144 / 1.12, 144 * 1.12);
    expect(percentileMs({}, 0.5)).to.equal(null);
  });
});
