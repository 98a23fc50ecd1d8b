import { expect } from "chai";
import { randomBytes } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { bucketName, EmbeddedStore } from "@mainline/kit/store/index";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { TestStatusChanged } from "@mainline/proto/flaky";
import { createFlakyService } from "../../src/main.js";
import type { FlakyAnalytics } from "../../src/app/flaky-analytics.js";
import type { SnapshotPolicy } from "../../src/app/test-indexes.js";
import type { TestResultsUpload } from "../../src/app/test-results-upload.js";
import { HOUR, junitFixture, REPO, surefireReport, T0 } from "./flaky-fixture.js";

const DATABASE = "flaky-durability";

/**
 * One service "process": its own NATS connection and embedded store over a shared nats-server.
 * crash() drops the connection without closing anything, as a killed process would.
 */
class Instance {
  private constructor(
    readonly app: FlakyAnalytics,
    readonly nc: NatsConnection,
    private readonly startConsuming: () => Promise<{ stop(): Promise<void> }>,
  ) {}

  static async start(server: NatsServer, policy?: SnapshotPolicy): Promise<Instance> {
    const nc = await connect({ ...server.connectOptions(), reconnect: false });
    const store = new EmbeddedStore({ nats: nc, database: DATABASE });
    const service = await createFlakyService({
      nats: nc,
      store,
      logger: createLogger("flaky-durability", "silent"),
      pageTokenKey: "flaky-durability-page-token-key",
      publicBaseUrl: "https://mainline.example.test",
      now: () => T0 + 6 * HOUR,
      ...(policy ? { snapshotPolicy: policy } : {}),
    });
    return new Instance(service.app, nc, () => service.startConsuming());
  }

  /** What start-up does after wiring: publishes status changes still pending. */
  async sweep(): Promise<void> {
    const consumer = await this.startConsuming();
    await consumer.stop();
  }

  async crash(): Promise<void> {
    this.app.outbox.stop();
    await this.nc.close();
  }

  upload(org: string, junitXml: string[], extra: Partial<TestResultsUpload> = {}) {
    return this.app.uploadTestResults({
      org,
      repo: REPO,
      commitSha: "c".repeat(40),
      branch: "main",
      variant: "",
      jobName: "unit",
      runStartedAt: T0,
      context: "ci",
      junitXml,
      ...extra,
    });
  }

  /** Every page of the listing around T0, as the API would return it. */
  async listing(org: string) {
    const pages = [];
    let token = "";
    do {
      const page = await this.app.listFailingTests(org, {
        org: org,
        repo: REPO,
        startTime: T0 - 24 * HOUR,
        endTime: T0 + 24 * HOUR,
        pageSize: 7,
        pageToken: token,
      });
      pages.push(page);
      token = page.page.next_page_token;
    } while (token !== "");
    return pages;
  }
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return undefined;
}

/** Drops `victim`'s connection as soon as a key-value write reaches `collection`'s bucket. */
async function crashOnFirstWriteTo(server: NatsServer, collection: string, victim: Instance) {
  const observer = await connect(server.connectOptions());
  const subject = `$KV.${bucketName(DATABASE, collection)}.>`;
  let crashed: Promise<void> | undefined;
  const sub = observer.subscribe(subject, {
    callback: () => {
      crashed ??= victim.crash();
    },
  });
  await observer.flush();
  return {
    async done() {
      sub.unsubscribe();
      await observer.close();
      return crashed !== undefined;
    },
  };
}

/** A report whose journal entry needs several parts: long failure messages that do not compress. */
function bulkyReport(count: number): string {
  const cases = Array.from(
    { length: count },
    (_, i) =>
      `<testcase name="bulk${i}" classname="com.acme.Bulk"><failure message="${randomBytes(675).toString("base64")}"/></testcase>`,
  );
  return `<testsuite name="com.acme.Bulk">${cases.join("")}</testsuite>`;
}

describe("flaky-analytics durability: the upload journal and snapshots across crashes", function () {
  // Each test starts several instances and stores uploads of thousands of results: 30 s was overrun on a loaded
  // machine.
  this.timeout(120_000);
  let server: NatsServer;

  before(async () => {
    server = await NatsServer.start();
  });
  after(() => server.stop());

  it("keeps every acknowledged upload across a crash, in a snapshot or only in the journal", async () => {
    const org = "kept";
    // A snapshot every four uploads: the first four end up in it, the last two only in the journal.
    const first = await Instance.start(server, { entries: 4, results: 1_000_000 });
    const summaries = [];
    for (let run = 0; run < 5; run++) {
      summaries.push(
        await first.upload(org, [surefireReport(30, (i) => (i + run) % 4 === 0)], {
          commitSha: String(run).repeat(40),
          runStartedAt: T0 + run * HOUR,
          uploadId: `run-${run}`,
        }),
      );
    }
    await first.upload(org, [junitFixture("gradle-test-retry-unmerged.xml")], { uploadId: "flaky-run" });
    const before = await first.listing(org);
    expect(before[0]?.page.total_rows).to.equal(31);
    await first.crash();

    const second = await Instance.start(server, { entries: 4, results: 1_000_000 });
    expect(await second.listing(org)).to.deep.equal(before);
    // Every upload id is still known: sent again, each is a no-op that answers as the first time.
    for (const [run, summary] of summaries.entries()) {
      const again = await second.upload(org, [surefireReport(30, (i) => (i + run) % 4 === 0)], {
        commitSha: String(run).repeat(40),
        runStartedAt: T0 + run * HOUR,
        uploadId: `run-${run}`,
      });
      expect(again).to.deep.equal(summary);
    }
    expect(await second.listing(org)).to.deep.equal(before);
    await second.crash();
  });

  it("shows an upload cut short by a crash whole or not at all, and counts its retry once", async () => {
    const org = "cut";
    const report = bulkyReport(3000);
    const doomed = await Instance.start(server);
    const tripwire = await crashOnFirstWriteTo(server, "upload_parts", doomed);
    const outcome = await rejectionOf(doomed.upload(org, [report], { uploadId: "bulky" }));
    expect(await tripwire.done(), "the journal entry needed more than one part").to.equal(true);

    // The crash comes before the commit (nothing stored) or after it (all stored, perhaps without
    // the acknowledgement reaching the caller): never anything in between, and an acknowledged
    // upload is always there.
    const restarted = await Instance.start(server);
    const rows = (await restarted.listing(org))[0]?.page.total_rows;
    expect(outcome === undefined ? [3000] : [0, 3000]).to.include(rows);
    const retried = await restarted.upload(org, [report], { uploadId: "bulky" });
    // Applied now, or the answer of the first application: either way 3000 new tests, once.
    expect(retried).to.include({ results: 3000, failed: 3000, newTests: 3000 });
    const after = await restarted.listing(org);
    expect(after[0]?.page.total_rows).to.equal(3000);
    // One run per test, not two.
    for (const page of after) for (const test of page.tests) expect(test.failureRateLast7d).to.equal(1);
    await restarted.crash();
    const third = await Instance.start(server);
    expect(await third.listing(org)).to.deep.equal(after);
    await third.crash();
  });

  it("keeps the previous snapshot and the journal when a crash cuts a snapshot short", async () => {
    const org = "snapshot";
    const doomed = await Instance.start(server, { entries: 3, results: 1_000_000 });
    for (let run = 0; run < 2; run++) {
      await doomed.upload(org, [surefireReport(40, (i) => i % 3 === run)], {
        runStartedAt: T0 + run * HOUR,
        uploadId: `s-${run}`,
      });
    }
    const tripwire = await crashOnFirstWriteTo(server, "snapshot_parts", doomed);
    // The third upload is committed, then its snapshot is cut: the upload still succeeds.
    const third = await doomed.upload(org, [surefireReport(40, (i) => i % 3 === 2)], {
      runStartedAt: T0 + 2 * HOUR,
      uploadId: "s-2",
    });
    expect(third.results).to.equal(40);
    expect(await tripwire.done()).to.equal(true);
    const before = await doomed.listing(org);

    const restarted = await Instance.start(server, { entries: 3, results: 1_000_000 });
    expect(await restarted.listing(org)).to.deep.equal(before);
    for (const page of before)
      for (const test of page.tests) expect(test.failureRateLast7d).to.be.closeTo(1 / 3, 1e-9);
    await restarted.crash();
  });

  it("publishes a status change once: a restart does not announce it again", async () => {
    const org = "events";
    const events: TestStatusChanged[] = [];
    const watcher = await connect(server.connectOptions());
    watcher.subscribe(SUBJECTS.testStatusEvent, {
      callback: (_error, message) => {
        const event = TestStatusChanged.decode(message.data);
        if (event.org === org) events.push(event);
      },
    });
    await watcher.flush();

    const first = await Instance.start(server);
    await first.upload(org, [junitFixture("gradle-test-retry-unmerged.xml")], { uploadId: "flaky" });
    await first.nc.flush();
    await first.crash();
    const restarted = await Instance.start(server);
    await restarted.sweep();
    await restarted.nc.flush();
    await watcher.flush();
    expect(events.map((event) => event.newStatus)).to.have.length(1);
    await restarted.crash();
    await watcher.close();
  });
});
