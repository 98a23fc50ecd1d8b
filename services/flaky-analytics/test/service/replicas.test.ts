import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { publish } from "@mainline/kit/bus/index";
import { createLogger } from "@mainline/kit/logging/index";
import { EmbeddedStore } from "@mainline/kit/store/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { ResultContext, UploadTestResultsRequest } from "@mainline/proto/flaky";
import { createFlakyService } from "../../src/main.js";
import type { FlakyAnalytics } from "../../src/app/flaky-analytics.js";
import type { SnapshotPolicy } from "../../src/app/test-indexes.js";
import type { TestResultsUpload } from "../../src/app/test-results-upload.js";
import { TEST_RESULTS_DURABLE } from "../../src/bus/test-results-consumer.js";
import { HOUR, REPO, surefireReport, T0 } from "./flaky-fixture.js";

const DATABASE = "flaky-replicas";
const SUITE_SIZE = 12;

/**
 * One replica "process": its own NATS connection, its own embedded store over the shared buckets, and
 * the test-results consumer (one durable consumer shared by every replica).
 */
class Replica {
  private constructor(
    readonly app: FlakyAnalytics,
    readonly nc: NatsConnection,
    private readonly consumer: { stop(): Promise<void> },
  ) {}

  static async start(server: NatsServer, policy?: SnapshotPolicy): Promise<Replica> {
    const nc = await connect({ ...server.connectOptions(), reconnect: false });
    const store = new EmbeddedStore({ nats: nc, database: DATABASE });
    const service = await createFlakyService({
      nats: nc,
      store,
      logger: createLogger("flaky-replicas", "silent"),
      pageTokenKey: "flaky-replicas-page-token-key",
      publicBaseUrl: "https://mainline.example.test",
      now: () => T0 + 12 * HOUR,
      ...(policy ? { snapshotPolicy: policy } : {}),
    });
    return new Replica(service.app, nc, await service.startConsuming());
  }

  /** Dies as a killed process would: the connection drops, nothing is closed in order. */
  async crash(): Promise<void> {
    this.app.outbox.stop();
    await this.consumer.stop().catch(() => undefined);
    await this.nc.close();
  }

  upload(org: string, run: number, extra: Partial<TestResultsUpload> = {}) {
    return this.app.uploadTestResults(ciRun(org, run, extra));
  }

  /** Every page of the listing around T0, as the API would return it. */
  async listing(org: string) {
    const pages = [];
    let token = "";
    do {
      const page = await this.app.listFailingTests(org, {
        org,
        repo: REPO,
        startTime: T0 - 24 * HOUR,
        endTime: T0 + 24 * HOUR,
        pageSize: 5,
        pageToken: token,
      });
      pages.push(page);
      token = page.page.next_page_token;
    } while (token !== "");
    return pages;
  }
}

/**
 * Run `run` of the suite: test `run` fails, and test 0 fails in every third run, so each test's
 * failure rate says how many runs were counted (a run counted twice moves it).
 */
function ciRun(org: string, run: number, extra: Partial<TestResultsUpload> = {}): TestResultsUpload {
  return {
    org,
    repo: REPO,
    commitSha: String(run % 10).repeat(40),
    branch: `feature/${run}`,
    prNumber: 100 + run,
    variant: "",
    jobName: "unit",
    runStartedAt: T0 + run * 60_000,
    context: "ci",
    junitXml: [surefireReport(SUITE_SIZE, (i) => i === run % SUITE_SIZE || (i === 0 && run % 3 === 0))],
    uploadId: `${org}-run-${run}`,
    ...extra,
  };
}

/** The failure rate of every listed test, by name: what a double count or a lost upload changes. */
async function rates(replica: Replica, org: string): Promise<Record<string, number>> {
  const rates: Record<string, number> = {};
  for (const page of await replica.listing(org))
    for (const test of page.tests) rates[test.name] = test.failureRateLast7d;
  return rates;
}

/** What the runs 0..runs-1 give when each is counted once. */
function expectedRates(runs: number): Record<string, number> {
  const rates: Record<string, number> = {};
  for (let i = 0; i < Math.min(runs, SUITE_SIZE); i++) {
    const failures = i === 0 ? Math.ceil(runs / 3) : 0;
    const own = Math.floor((runs - 1 - i) / SUITE_SIZE) + 1;
    rates[`test${String(i).padStart(3, "0")}`] = (failures + (i === 0 ? 0 : own)) / runs;
  }
  return rates;
}

async function drained(nc: NatsConnection): Promise<void> {
  const jsm = await nc.jetstreamManager();
  for (let i = 0; i < 400; i++) {
    const info = await jsm.consumers.info(STREAMS.jobs.name, TEST_RESULTS_DURABLE);
    if (info.num_pending === 0 && info.num_ack_pending === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the test-results consumer did not drain");
}

describe("flaky-analytics as two replicas on one NATS", function () {
  this.timeout(60_000);
  let server: NatsServer;

  before(async () => {
    server = await NatsServer.start();
  });
  after(() => server.stop());

  it("answers alike from both replicas right after each upload, whichever replica took it", async () => {
    const org = "alike";
    const a = await Replica.start(server);
    const b = await Replica.start(server);
    for (let run = 0; run < 6; run++) {
      const [taker, other] = run % 2 === 0 ? [a, b] : [b, a];
      await taker.upload(org, run);
      const fromTaker = await taker.listing(org);
      expect(await other.listing(org), `after run ${run}`).to.deep.equal(fromTaker);
      expect(await rates(other, org)).to.deep.equal(expectedRates(run + 1));
      const testId = fromTaker[0]!.tests[0]!.id;
      expect(await other.app.getTest(org, REPO, testId)).to.deep.equal(
        await taker.app.getTest(org, REPO, testId),
      );
    }
    await a.crash();
    await b.crash();
  });

  it("counts each upload once when both replicas take uploads of one repository at the same time", async () => {
    const org = "race";
    const a = await Replica.start(server);
    const b = await Replica.start(server);
    const runs = 24;
    const sent = [];
    for (let run = 0; run < runs; run += 2) {
      // Two uploads at once, one per replica: both aim at the same journal position.
      sent.push(a.upload(org, run), b.upload(org, run + 1));
    }
    // The same upload sent to both replicas (a client retrying on the other one) counts once.
    sent.push(a.upload(org, 3), b.upload(org, 3), a.upload(org, 8), b.upload(org, 8));
    const summaries = await Promise.all(sent);
    expect(summaries.every((s) => s.results === SUITE_SIZE)).to.equal(true);

    expect(await rates(a, org)).to.deep.equal(expectedRates(runs));
    expect(await b.listing(org)).to.deep.equal(await a.listing(org));
    await a.crash();
    await b.crash();
  });

  it("consumes the merge queue's results once for the group, and both replicas list them", async () => {
    const org = "bus";
    const a = await Replica.start(server);
    const b = await Replica.start(server);
    const js = a.nc.jetstream();
    const runs = 9;
    for (let run = 0; run < runs; run++) {
      const upload = ciRun(org, run);
      await publish(
        js,
        SUBJECTS.testResults,
        UploadTestResultsRequest,
        UploadTestResultsRequest.fromPartial({
          ...upload,
          junitXml: [...upload.junitXml],
          impactedPrNumbers: [],
          runStartedAt: new Date(upload.runStartedAt!),
          context: ResultContext.CI,
          prNumber: upload.prNumber,
        }),
        { msgId: `results:${upload.uploadId}` },
      );
    }
    await drained(a.nc);
    expect(await rates(a, org)).to.deep.equal(expectedRates(runs));
    expect(await b.listing(org)).to.deep.equal(await a.listing(org));
    await a.crash();
    await b.crash();
  });

  it("shows a quarantine override set on one replica on the other at once", async () => {
    const org = "override";
    const a = await Replica.start(server);
    const b = await Replica.start(server);
    await a.upload(org, 0);
    const [test] = (await b.listing(org))[0]!.tests;
    await a.app.updateRepositorySettings(org, REPO, { quarantiningEnabled: true });
    await a.app.setQuarantineOverride(org, REPO, test!.id, "ALWAYS_QUARANTINE");
    expect((await b.app.getQuarantineConfig(org, REPO)).testIds).to.deep.equal([test!.id]);
    expect((await b.app.getTest(org, REPO, test!.id)).record.quarantineOverride).to.equal(
      "ALWAYS_QUARANTINE",
    );
    await b.app.setQuarantineOverride(org, REPO, test!.id, undefined);
    expect((await a.app.getQuarantineConfig(org, REPO)).testIds).to.deep.equal([]);
    await a.crash();
    await b.crash();
  });

  it("keeps answering everything, the dead replica's uploads included, when one replica dies", async () => {
    const org = "survive";
    // Snapshots every few entries: both replicas snapshot the same journal and must not clobber each other.
    const policy = { entries: 3, results: 1_000_000 };
    const a = await Replica.start(server, policy);
    const b = await Replica.start(server, policy);
    const runs = 14;
    for (let run = 0; run < runs; run += 2) await Promise.all([a.upload(org, run), b.upload(org, run + 1)]);
    const before = await b.listing(org);
    await a.crash();

    expect(await b.listing(org)).to.deep.equal(before);
    expect(await rates(b, org)).to.deep.equal(expectedRates(runs));
    // The survivor takes new uploads, over gRPC's path and over the bus alike.
    await b.upload(org, runs);
    expect(await rates(b, org)).to.deep.equal(expectedRates(runs + 1));

    // A replica started now (the dead one's replacement) loads the same state from snapshot and journal.
    const c = await Replica.start(server, policy);
    expect(await c.listing(org)).to.deep.equal(await b.listing(org));
    await b.crash();
    await c.crash();
  });
});
