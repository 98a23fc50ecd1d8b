import { expect } from "chai";
import { eventually } from "@mainline/testing";
import { TestStatus } from "@mainline/proto/flaky";
import { checkExposition, histogramOf, valueOf } from "./support/exposition.js";
import { MetricsSystem } from "./support/metrics-system.js";
import { QueueDriver } from "./support/queue-driver.js";

const labels = { repo: "acme/widgets", branch: "main", queue_type: "main" };
const repo = { host: "github.com", owner: "acme", name: "widgets" };

/**
 * Two replicas of the metrics service share one durable consumer and one store (DESIGN rule 5): each lifecycle
 * event is applied by one of them, and a scrape of either reads the shared totals.
 */
describe("metrics service in two replicas", function () {
  this.timeout(120_000);
  let system: MetricsSystem;
  let token: string;
  let q: QueueDriver;

  before(async () => {
    system = await MetricsSystem.start();
    await system.startReplica("b");
    token = await system.gateway.organization("acme");
    q = new QueueDriver(system, token, repo);
    await q.create();
  });
  after(async () => {
    await system?.stop();
  });

  it("reports the same totals from both replicas, each event counted once", async () => {
    const failing = new Set([3, 6]);
    for (let pr = 1; pr <= 8; pr++) {
      await q.open(pr);
      await q.submit(pr);
      await q.waitFor(pr, "TESTING");
      system.clock.advance(1);
      await q.report(pr, !failing.has(pr));
      await q.waitFor(pr, failing.has(pr) ? "FAILED" : "MERGED");
    }
    await q.open(9);
    await q.submit(9);
    await q.waitFor(9, "TESTING");
    for (const test of ["t1", "t2", "t3"]) {
      await system.publishTestStatus(
        "acme",
        repo,
        test,
        test === "t3" ? TestStatus.BROKEN : TestStatus.FLAKY,
      );
    }

    // Either replica may have applied the last events: its store reads follow the other's writes within milliseconds.
    const fromGateway = await eventually(async () => {
      const scraped = await system.scrape(token);
      expect(valueOf(scraped, "mq_pr_conclusions_1h_total", { ...labels, conclusion: "merged" })).to.equal(6);
      expect(valueOf(scraped, "mq_pr_conclusions_1h_total", { ...labels, conclusion: "failed" })).to.equal(2);
      expect(valueOf(scraped, "mq_test_runs_started_1h", labels)).to.equal(9);
      expect(valueOf(scraped, "mq_testing_slots_active", labels)).to.equal(1);
      expect(valueOf(scraped, "mq_depth_current", labels)).to.equal(1);
      expect(valueOf(scraped, "mq_tests_current", { repo: "acme/widgets", status: "flaky" })).to.equal(2);
      expect(histogramOf(scraped, "mq_pr_test_duration_1h_seconds", labels).count).to.equal(8);
      return scraped;
    });

    // The other replica's reads follow the store a few milliseconds behind: the same text, soon.
    const text = await (await system.scrapeRaw(token)).text();
    await eventually(async () => expect(await system.scrapeReplica("b", "acme")).to.equal(text));
    const fromReplica = checkExposition(await system.scrapeReplica("b", "acme"));
    expect(fromReplica.samples).to.deep.equal(fromGateway.samples);
  });
});
