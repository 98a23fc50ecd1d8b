import { expect } from "chai";
import { STREAMS } from "@mainline/kit/streams/index";
import { EXPOSITION_PARSER, histogramOf, valueOf, type Exposition } from "./support/exposition.js";
import { MetricsSystem } from "./support/metrics-system.js";
import { QueueDriver } from "./support/queue-driver.js";

const labels = { repo: "acme/widgets", branch: "main", queue_type: "main" };

describe(`metrics service restarts (exposition checked by ${EXPOSITION_PARSER})`, function () {
  this.timeout(60_000);
  let system: MetricsSystem;
  let token: string;
  let q: QueueDriver;

  const scrape = () => system.scrape(token);
  const conclusions = (s: Exposition, conclusion: string) =>
    valueOf(s, "mq_pr_conclusions_1h_total", { ...labels, conclusion });

  before(async () => {
    system = await MetricsSystem.start();
    token = await system.gateway.organization("acme");
    q = new QueueDriver(system, token, { host: "github.com", owner: "acme", name: "widgets" });
    await q.create();
  });
  after(async () => {
    await system?.stop();
  });

  it("keeps the one-hour windows and the PRs' start times across a crash, and counts nothing twice", async () => {
    await q.open(1);
    await q.submit(1);
    await q.waitFor(1, "TESTING");
    system.clock.advance(10);
    await q.report(1, true);
    await q.open(2);
    await q.submit(2);
    await q.waitFor(2, "TESTING");
    const before = await scrape();
    expect(conclusions(before, "merged")).to.equal(1);
    expect(valueOf(before, "mq_depth_current", labels)).to.equal(1);

    await system.crashMetrics();
    // While the service is down: PR 2, which started testing before the crash, merges 15 minutes later; PR 3
    // enters and starts testing; PR 4 is submitted and cancelled.
    system.clock.advance(15);
    await q.report(2, true);
    await q.waitFor(2, "MERGED");
    await q.open(3);
    await q.submit(3);
    await q.submit(4);
    await q.cancel(4);
    await q.waitFor(3, "TESTING");

    await system.startMetrics();
    const after = await scrape();
    expect(conclusions(after, "merged")).to.equal(2);
    expect(conclusions(after, "cancelled")).to.equal(1);
    expect(valueOf(after, "mq_depth_current", labels)).to.equal(1);
    expect(valueOf(after, "mq_awaiting_mergeability", labels)).to.equal(0);
    expect(valueOf(after, "mq_testing_slots_active", labels)).to.equal(1);
    expect(valueOf(after, "mq_test_runs_started_1h", labels)).to.equal(3);
    // PR 2's test began before the crash and ended after it: measured whole.
    const tested = histogramOf(after, "mq_pr_test_duration_1h_seconds", labels);
    expect([tested.count, tested.sum]).to.deep.equal([2, 600 + 900]);
    const inQueue = histogramOf(after, "mq_pr_time_in_queue_1h_seconds", labels);
    expect([inQueue.count, inQueue.sum]).to.deep.equal([2, 600 + 900]);
  });

  it("lets observations age out of the window, also across a restart, while the gauges stay", async () => {
    system.clock.advance(50);
    // 50 minutes on, PR 1's merge (65 minutes ago) has left the window, PR 2's (50 minutes ago) has not.
    const partly = await scrape();
    expect(conclusions(partly, "merged")).to.equal(1);
    await system.stopMetrics();
    system.clock.advance(11);
    await system.startMetrics();
    const later = await scrape();
    expect(conclusions(later, "merged")).to.equal(0);
    expect(conclusions(later, "cancelled")).to.equal(0);
    expect(histogramOf(later, "mq_pr_test_duration_1h_seconds", labels).count).to.equal(0);
    expect(valueOf(later, "mq_depth_current", labels)).to.equal(1);
    expect(valueOf(later, "mq_testing_slots_active", labels)).to.equal(1);
  });

  it("re-derives the gauges from the coordinator when it starts without the events that made them", async () => {
    await q.submit(5);
    await q.waitFor(5, "NOT_READY");
    await system.stopMetrics();
    // The events aged out of the stream and the store is new: only the coordinator still knows.
    const jsm = await system.coordinator.nc.jetstreamManager();
    await jsm.streams.purge(STREAMS.events.name);
    await system.startMetrics({ database: "mainline-metrics-fresh" });
    const rederived = await scrape();
    expect(valueOf(rederived, "mq_depth_current", labels)).to.equal(1);
    expect(valueOf(rederived, "mq_awaiting_mergeability", labels)).to.equal(1);
    expect(valueOf(rederived, "mq_testing_slots_active", labels)).to.equal(1);
    expect(conclusions(rederived, "merged")).to.equal(0);

    // From there on the events keep the gauges, and PR 3's end is counted.
    await q.report(3, true);
    await q.waitFor(3, "MERGED");
    const moved = await scrape();
    expect(valueOf(moved, "mq_depth_current", labels)).to.equal(0);
    expect(valueOf(moved, "mq_testing_slots_active", labels)).to.equal(0);
    expect(conclusions(moved, "merged")).to.equal(1);
  });

  it("corrects gauges whose events were missed, at the next re-derivation", async () => {
    await q.open(6);
    await q.submit(6);
    await q.waitFor(6, "TESTING");
    await system.settled();
    // The service misses PR 6's merge: its consumer is gone and the stream purged before it comes back.
    await system.stopMetrics();
    await q.report(6, true);
    await q.waitFor(6, "MERGED");
    const jsm = await system.coordinator.nc.jetstreamManager();
    await jsm.streams.purge(STREAMS.events.name);
    await system.startMetrics({ database: "mainline-metrics-fresh" });
    const corrected = await scrape();
    expect(valueOf(corrected, "mq_depth_current", labels)).to.equal(0);
    expect(valueOf(corrected, "mq_testing_slots_active", labels)).to.equal(0);
  });
});
