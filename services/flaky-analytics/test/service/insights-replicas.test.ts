import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { EmbeddedStore } from "@mainline/kit/store/index";
import { createFlakyService } from "../../src/main.js";
import type { FlakyAnalytics } from "../../src/app/flaky-analytics.js";
import type { TestInsightsQuery } from "../../src/app/test-insights.js";
import { HOUR, REPO, surefireReport, T0 } from "./flaky-fixture.js";

const DATABASE = "flaky-insights-replicas";
const DAY = 24 * HOUR;
const SUITE_SIZE = 8;
const NOW = T0 + 12 * HOUR;

interface Replica {
  app: FlakyAnalytics;
  nc: NatsConnection;
}

/** One replica "process" over the shared buckets, snapshotting every few journal entries. */
async function startReplica(server: NatsServer): Promise<Replica> {
  const nc = await connect({ ...server.connectOptions(), reconnect: false });
  const service = await createFlakyService({
    nats: nc,
    store: new EmbeddedStore({ nats: nc, database: DATABASE }),
    logger: createLogger("flaky-insights-replicas", "silent"),
    pageTokenKey: "flaky-insights-replicas-key",
    publicBaseUrl: "https://mainline.example.test",
    now: () => NOW,
    snapshotPolicy: { entries: 3, results: 1_000_000 },
  });
  return { app: service.app, nc };
}

/**
 * Run `run`, `run` days before T0 (spread over 40 days, so 30 and 90 days differ): a merge-queue run of PR
 * 100 + run in which test `run % 8` fails; every fifth run is CI, where test 1 fails too.
 */
function upload(app: FlakyAnalytics, run: number) {
  const ci = run % 5 === 0;
  return app.uploadTestResults({
    org: "acme",
    repo: REPO,
    commitSha: String(run % 10).repeat(40),
    branch: ci ? "main" : `mainline/queue-${run}`,
    prNumber: 100 + run,
    variant: "",
    jobName: "unit",
    runStartedAt: T0 - run * DAY,
    context: ci ? "ci" : "merge_queue",
    junitXml: [surefireReport(SUITE_SIZE, (i) => i === run % SUITE_SIZE || (ci && i === 1))],
    uploadId: `insights-run-${run}`,
  });
}

const query = (period: TestInsightsQuery["period"], bucket: TestInsightsQuery["bucket"], cursor = "") => ({
  org: "acme",
  repo: REPO,
  period,
  bucket,
  cursor,
  limit: 3,
});

describe("flaky-analytics' test insights across replicas and restarts", function () {
  this.timeout(90_000);
  let server: NatsServer;
  const replicas: Replica[] = [];

  before(async () => {
    server = await NatsServer.start();
  });
  after(async () => {
    for (const { app, nc } of replicas) {
      app.outbox.stop();
      await nc.close().catch(() => undefined);
    }
    await server.stop();
  });

  it("answers alike from two replicas that took the uploads in turn, and from one started afterwards", async () => {
    const a = await startReplica(server);
    const b = await startReplica(server);
    replicas.push(a, b);
    const runs = 40;
    for (let run = 0; run < runs; run += 2) await Promise.all([upload(a.app, run), upload(b.app, run + 1)]);

    const daily = await a.app.getTestInsights(query("90d", "day"));
    expect(await b.app.getTestInsights(query("90d", "day"))).to.deep.equal(daily);
    // Every run counted once, in its own day: 40 days with 8 runs each.
    const busy = daily.buckets.filter((bucket) => bucket.runs > 0);
    expect(busy).to.have.length(runs);
    expect(busy.every((bucket) => bucket.runs === SUITE_SIZE)).to.equal(true);
    const failures = busy.reduce((sum, bucket) => sum + bucket.failures, 0);
    // One failing test per run, plus test 1 in the 8 CI runs (0, 5, ..., 35) but run 25, where it is the one.
    expect(failures).to.equal(runs + 7);
    // Every test fails 4 merge-queue runs; test 1 also fails CI runs: 12 PRs (1, 9, 17, 33 and the 8 CI runs).
    const top = daily.costliest[0];
    expect(top).to.include({ name: "test001", failedQueueRuns: 4, pullRequestsImpacted: 12 });
    expect(daily.totalCostlyTests).to.equal(SUITE_SIZE);

    // By the hour over 30 days, from the repository's trend the snapshots carry.
    const hourly = await b.app.getTestInsights(query("30d", "hour"));
    expect(hourly.buckets).to.have.length(720);
    expect(hourly.buckets.reduce((sum, bucket) => sum + bucket.runs, 0)).to.equal(30 * SUITE_SIZE);

    // A replica started now loads the snapshot and the journal after it, and answers the same.
    const c = await startReplica(server);
    replicas.push(c);
    expect(await c.app.getTestInsights(query("90d", "day"))).to.deep.equal(daily);
    expect(await c.app.getTestInsights(query("30d", "hour"))).to.deep.equal(hourly);
    const next = await c.app.getTestInsights(query("90d", "day", daily.nextCursor));
    expect(next).to.deep.equal(await a.app.getTestInsights(query("90d", "day", daily.nextCursor)));
    expect(next.costliest.map((t) => t.id)).to.not.include.members(daily.costliest.map((t) => t.id));
    const trend = await c.app.getTestTrend({ ...query("30d", "day"), testId: top!.id });
    expect(trend).to.deep.equal(await a.app.getTestTrend({ ...query("30d", "day"), testId: top!.id }));
    // Runs 0..29: test 1 failed in runs 0, 1, 5, 9, 10, 15, 17, 20 and 25.
    expect(trend.buckets.filter((bucket) => bucket.failures > 0)).to.have.length(9);
  });
});
