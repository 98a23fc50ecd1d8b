import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { EmbeddedStore } from "@mainline/kit/store/index";
import { createFlakyService } from "../../src/main.js";
import type { FlakyAnalytics } from "../../src/app/flaky-analytics.js";
import { HOUR, junitFixture, REPO, T0 } from "./flaky-fixture.js";

/**
 * The repositories an organisation has results for come from the store: those folded into a snapshot as well as
 * those only in the journal, whichever replica took the uploads, and never a name a reader merely asked about.
 */
describe("flaky-analytics: an organisation's repositories", function () {
  this.timeout(30_000);
  let server: NatsServer;
  const connections: NatsConnection[] = [];

  /** One replica over the shared store; `snapshotEvery` uploads fold the journal into a snapshot. */
  async function replica(snapshotEvery: number): Promise<FlakyAnalytics> {
    const nc = await connect(server.connectOptions());
    connections.push(nc);
    const service = await createFlakyService({
      nats: nc,
      store: new EmbeddedStore({ nats: nc, database: "flaky-repositories" }),
      logger: createLogger("flaky-repositories", "silent"),
      pageTokenKey: "flaky-repositories-page-token-key",
      publicBaseUrl: "https://mainline.example.test",
      now: () => T0 + HOUR,
      snapshotPolicy: { results: 1_000_000, entries: snapshotEvery },
    });
    return service.app;
  }

  const upload = (app: FlakyAnalytics, org: string, repo: typeof REPO) =>
    app.uploadTestResults({
      org,
      repo,
      commitSha: "c".repeat(40),
      branch: "main",
      variant: "",
      jobName: "unit",
      runStartedAt: T0,
      context: "ci",
      junitXml: [junitFixture("jest-junit.xml")],
    });

  before(async () => {
    server = await NatsServer.start();
  });
  after(async () => {
    for (const nc of connections) await nc.close();
    await server.stop();
  });

  it("lists snapshotted and journal-only repositories, sorted, per organisation, on every replica", async () => {
    const snapshotting = await replica(1);
    const journaling = await replica(1000);
    const shop = { host: "GitHub.com", owner: "acme", name: "Shop" };
    const nested = { host: "gitlab.example", owner: "acme/platform", name: "ledger" };
    await upload(snapshotting, "acme", REPO);
    await upload(journaling, "acme", shop);
    await upload(journaling, "acme", nested);
    await upload(journaling, "globex", REPO);
    // A reader asking about a repository with no results does not make it one of the organisation's.
    await journaling.listFailingTests("acme", {
      org: "acme",
      repo: { host: "github.com", owner: "acme", name: "nonsense" },
      startTime: T0 - HOUR,
      endTime: T0 + HOUR,
      pageSize: 10,
      pageToken: "",
    });
    const expected = [{ host: "github.com", owner: "acme", name: "Shop" }, REPO, nested];
    expect(await snapshotting.listRepositories("acme")).to.deep.equal(expected);
    expect(await journaling.listRepositories("acme")).to.deep.equal(expected);
    expect(await journaling.listRepositories("globex")).to.deep.equal([REPO]);
    expect(await journaling.listRepositories("initech")).to.deep.equal([]);
  });
});
