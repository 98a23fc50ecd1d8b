import { expect } from "chai";
import { runPlainQueue, type SimulatedPr, type Workload } from "@mainline/sim";

const MINUTE = 60_000;

const pr = (number: number, extra: Partial<SimulatedPr> = {}): SimulatedPr => ({
  number,
  arrivesAt: 0,
  bad: false,
  testMinutes: 30,
  priority: "medium",
  noBatch: false,
  targets: [],
  cancelAt: null,
  ...extra,
});

const load = (prs: SimulatedPr[], flakeRate = 0): Workload => ({
  name: "plain",
  seed: 7,
  flakeRate,
  mergeMinutes: 1,
  prs,
});

const batchesOf = (batchSize: number, concurrency = 1) => ({
  concurrency,
  batchSize,
  batchingMaxWaitTimeMinutes: 5,
});

describe("the plain speculative queue (simulate --compare's yardstick)", () => {
  it("a lone PR merges one run and one merge after it arrives", () => {
    const r = runPlainQueue(load([pr(1, { arrivesAt: 10 * MINUTE, testMinutes: 42 })]), batchesOf(1));
    expect(r).to.include({ merged: 1, failed: 0, mainRuns: 1, bisectionRuns: 0, stuck: 0 });
    expect(r.timeToMergeMinutes.p50).to.equal(43);
  });

  it("a batch waits for its size or the max wait, then tests once for all", () => {
    const r = runPlainQueue(load([pr(1), pr(2, { arrivesAt: 2 * MINUTE })]), batchesOf(4));
    // Two of four after 5 minutes: the batch closes at 5 and merges at 5 + 30 + 1 = 36, PR 1's wait.
    expect(r).to.include({ merged: 2, mainRuns: 1 });
    expect(r.timeToMergeMinutes.p50).to.equal(36);
    expect(r.timeToMergeMinutes.mean).to.equal(35);
  });

  it("a failed batch steps aside and is bisected: the bad PR fails, the good ones merge", () => {
    const r = runPlainQueue(load([pr(1), pr(2), pr(3, { bad: true }), pr(4)]), batchesOf(4, 2));
    expect(r).to.include({ merged: 3, failed: 1, badMerged: 0, goodFailed: 0, stuck: 0 });
    // The batch, its halves (1-2, 3-4), the bad half's halves (3, 4), then 1-2 and 4 again in the train.
    expect(r.bisectionRuns).to.equal(4);
    expect(r.finalStates[3]).to.equal("FAILED");
  });

  it("every run behind a failure restarts: it was tested on top of the bad PR", () => {
    const prs = [pr(1, { bad: true }), pr(2, { arrivesAt: MINUTE }), pr(3, { arrivesAt: 2 * MINUTE })];
    const r = runPlainQueue(load(prs), batchesOf(1, 3));
    expect(r).to.include({ merged: 2, failed: 1, mainRuns: 5 });
  });

  it("a cancelled PR leaves the queue and the rest still merge", () => {
    const prs = [pr(1), pr(2, { cancelAt: 10 * MINUTE }), pr(3)];
    const r = runPlainQueue(load(prs), batchesOf(1, 3));
    expect(r).to.include({ merged: 2, cancelled: 1, stuck: 0 });
  });

  it("replays exactly for a seed, flakes included, and reads the quarantined share as fewer flakes", () => {
    const many = Array.from({ length: 80 }, (_, i) =>
      pr(i + 1, { arrivesAt: i * 5 * MINUTE, bad: i % 9 === 0 }),
    );
    const once = runPlainQueue(load(many, 0.2), batchesOf(4, 4));
    expect(runPlainQueue(load(many, 0.2), batchesOf(4, 4))).to.deep.equal(once);
    expect(once.badMerged).to.equal(0);
    expect(once.merged + once.failed).to.equal(80);
    const known = runPlainQueue({ ...load(many, 0.2), quarantinedShare: 1 }, batchesOf(4, 4));
    expect(known.goodFailed).to.equal(0);
    expect(known.mainRuns + known.bisectionRuns).to.be.lessThan(once.mainRuns + once.bisectionRuns);
  });
});
