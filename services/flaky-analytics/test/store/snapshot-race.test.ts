import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { EmbeddedStore } from "@mainline/kit/store/index";
import { EMPTY_EVIDENCE } from "../../src/domain/index.js";
import type { TestDocument } from "../../src/store/documents.js";
import { TestSnapshots } from "../../src/store/test-snapshots.js";

const REPO = { host: "github.com", owner: "acme", name: "widgets" };

/** `count` tests whose names say which snapshot wrote them; long enough to need several parts. */
function testsOf(writer: string, count: number): TestDocument[] {
  return Array.from({ length: count }, (_, i) => ({
    _id: `${writer}-${i}`,
    org: "race",
    repoKey: "github.com/acme/widgets",
    repo: REPO,
    name: `${writer} ${i} ${"x".repeat(40)}${Math.random().toString(36)}`,
    variant: "",
    status: { value: "healthy", reason: "", timestamp: 0 },
    evidence: { ...EMPTY_EVIDENCE },
    buckets: [],
    failureGroups: [],
    failureTimes: [],
    firstSeenAt: 0,
    lastSeenAt: 0,
  }));
}

/** The current snapshot once this replica's copy of the store shows `seq` (another replica's write arrives in ms). */
async function settledHead(snapshots: TestSnapshots, seq: number) {
  for (let attempt = 0; ; attempt++) {
    const head = await snapshots.current("race", "github.com/acme/widgets");
    if (head?.seq === seq || attempt >= 100) return head;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("flaky-analytics snapshots written by two replicas at once", function () {
  this.timeout(60_000);
  let server: NatsServer;
  const connections: NatsConnection[] = [];

  before(async () => {
    server = await NatsServer.start();
  });
  after(async () => {
    for (const nc of connections) await nc.close();
    await server.stop();
  });

  async function replica(): Promise<TestSnapshots> {
    const nc = await connect(server.connectOptions());
    connections.push(nc);
    return TestSnapshots.open(new EmbeddedStore({ nats: nc, database: "flaky-snapshot-race" }));
  }

  it("commits one of two racing snapshots whole, never a mix of both, and never goes back in the journal", async () => {
    const [a, b] = [await replica(), await replica()];
    for (let round = 1; round <= 8; round++) {
      const [low, high] = [round * 10, round * 10 + 5];
      // Both replicas snapshot at once, at different journal positions (and, every other round, the same one).
      const [lowWriter, highWriter] = round % 2 === 0 ? [a, b] : [b, a];
      const sameSeq = round % 3 === 0;
      await Promise.all([
        lowWriter.write(
          "race",
          "github.com/acme/widgets",
          sameSeq ? high : low,
          testsOf(`low${round}`, 3000),
          0,
        ),
        highWriter.write("race", "github.com/acme/widgets", high, testsOf(`high${round}`, 3000), 0),
      ]);
      const committed = (await a.current("race", "github.com/acme/widgets"))!.seq;
      expect([low, high], `round ${round}`).to.include(committed);
      // A snapshot behind the current one changes nothing.
      expect(
        await lowWriter.write("race", "github.com/acme/widgets", low - 1, testsOf("late", 10), 0),
      ).to.equal(false);
      for (const reader of [a, b]) {
        const head = await settledHead(reader, committed);
        expect(head?.seq, `round ${round}`).to.equal(committed);
        const tests = await reader.read(head!);
        expect(tests).to.have.length(3000);
        // One writer's tests, never a mix of two.
        const writers = new Set(tests.map((test) => test._id.split("-")[0]));
        expect(writers.size, `round ${round}: ${[...writers].join(", ")}`).to.equal(1);
      }
    }
  });
});
