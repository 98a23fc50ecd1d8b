import { expect } from "chai";
import type { QueueInsightsBucket } from "@mainline/proto/queue";
import { FinishedBuckets } from "../../src/api/finished-buckets.js";

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 2);
const bucket = (i: number, merged: number): QueueInsightsBucket & { startMs: number } => ({
  startMs: T0 + i * H,
  start: new Date(T0 + i * H),
  merged,
  failed: {},
  depthMax: 0,
  depthEnd: 0,
  ciRuns: 0,
  ciRunsAlone: 0,
  bisectionRuns: 0,
  restarts: {},
  pausedMinutes: 0,
  targetBrokenMinutes: 0,
});

describe("queue insights: finished buckets remembered", () => {
  it("gives back the remembered buckets from the period's start up to the first one not remembered", () => {
    const finished = new FinishedBuckets();
    const key = FinishedBuckets.key(1, ["q-b", "q-a"]);
    finished.remember(key, [bucket(0, 4), bucket(1, 5), bucket(3, 7)], T0);
    const found = finished.leading(key, T0, H, 10);
    expect(found.map((b) => b.merged)).to.deep.equal([4, 5]);
    expect(found[0]).to.not.have.property("startMs");
    expect(finished.leading(key, T0 + 3 * H, H, 10).map((b) => b.merged)).to.deep.equal([7]);
  });

  it("keeps sets of queues and bucket widths apart, whatever the order the queues are listed in", () => {
    const finished = new FinishedBuckets();
    finished.remember(FinishedBuckets.key(1, ["q-a", "q-b"]), [bucket(0, 4)], T0);
    expect(finished.leading(FinishedBuckets.key(1, ["q-b", "q-a"]), T0, H, 1)).to.have.length(1);
    expect(finished.leading(FinishedBuckets.key(24, ["q-a", "q-b"]), T0, H, 1)).to.deep.equal([]);
    expect(finished.leading(FinishedBuckets.key(1, ["q-a"]), T0, H, 1)).to.deep.equal([]);
  });

  it("forgets buckets older than the longest period", () => {
    const finished = new FinishedBuckets();
    const key = FinishedBuckets.key(1, ["q-a"]);
    finished.remember(key, [bucket(0, 1), bucket(1, 2)], T0);
    finished.remember(key, [bucket(2, 3)], T0 + 2 * H);
    expect(finished.leading(key, T0, H, 3)).to.deep.equal([]);
    expect(finished.leading(key, T0 + 2 * H, H, 1).map((b) => b.merged)).to.deep.equal([3]);
  });
});
