import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { eventually, NatsServer } from "@mainline/testing";
import { openStore, type Store } from "@mainline/kit/store/index";
import { MetricsState, type MetricsStores } from "../src/app/metrics-state.js";
import { ActiveRunStore } from "../src/store/active-run-store.js";
import { KnownQueueStore } from "../src/store/known-queue-store.js";
import { ObservationStore } from "../src/store/observation-store.js";
import { TestStatusStore } from "../src/store/test-status-store.js";
import { TimelineStore } from "../src/store/timeline-store.js";
import { MINUTE, transition } from "./domain/fixtures.js";

describe("metrics state on the embedded store", () => {
  let nats: NatsServer;
  let nc: NatsConnection;
  let store: Store;

  const stores = async (s: Store): Promise<MetricsStores> => ({
    timelines: TimelineStore.open(s),
    runs: ActiveRunStore.open(s),
    observations: await ObservationStore.open(s),
    tests: TestStatusStore.open(s),
    queues: KnownQueueStore.open(s),
  });
  const contents = async (state: MetricsState, now: number) => {
    const v = await state.view(now);
    return { timelines: [...v.timelines], observations: [...v.observations].map((o) => o.id) };
  };

  before(async () => {
    nats = await NatsServer.start();
    nc = await connect(nats.connectOptions());
    store = await openStore({ database: "metrics-state-test", nats: nc });
  });
  after(async () => {
    await store.close();
    await nc.close();
    await nats.stop();
  });

  it("applies a redelivered event once, and another process on the store finds what was applied", async () => {
    const now = 30 * MINUTE;
    const state = new MetricsState(await stores(store));
    const submitted = transition(1, null, "PENDING", 0);
    const testing = transition(1, "PENDING", "TESTING", 4);
    let seq = 0;
    for (const e of [submitted, testing, testing]) await state.applyTransition(e, ++seq, now);
    const applied = await contents(state, now);
    expect(applied.observations).to.deep.equal([`${testing.eventId}/pr_wait`]);
    expect(applied.timelines.map((t) => [t.state, t.testingSince])).to.deep.equal([["TESTING", 4 * MINUTE]]);

    const otherNc = await connect(nats.connectOptions());
    const otherStore = await openStore({ database: "metrics-state-test", nats: otherNc });
    try {
      expect(await contents(new MetricsState(await stores(otherStore)), now)).to.deep.equal(applied);
    } finally {
      await otherStore.close();
      await otherNc.close();
    }
  });

  it("refuses a write on a record another replica changed after it was read, and lands when re-applied", async () => {
    const now = 30 * MINUTE;
    const otherNc = await connect(nats.connectOptions());
    const otherStore = await openStore({ database: "metrics-state-test", nats: otherNc });
    try {
      const mine = new MetricsState(await stores(store));
      const theirStores = await stores(otherStore);
      const theirs = new MetricsState(theirStores);
      await mine.applyTransition(transition(2, null, "PENDING", 1), 10, now);
      const key = [...(await (await stores(store)).timelines.all()).keys()].find((k) => k.endsWith("|2"));
      if (key === undefined) throw new Error("PR 2 has no timeline");
      const seenByThem = await eventually(async () => {
        const seen = await theirStores.timelines.get(key);
        if (seen?.value?.state !== "PENDING") throw new Error("the other process has not seen PR 2 yet");
        return seen;
      });
      await mine.applyTransition(transition(2, "PENDING", "TESTING", 2), 11, now);
      // Their write on the version they read fails instead of putting PR 2 back to PENDING.
      expect(await theirStores.timelines.set(key, seenByThem, { value: seenByThem.value, seq: 12 })).to.equal(
        false,
      );

      // An event applied to a stale read is refused (redelivered by the bus); applied again, it lands.
      const merged = transition(2, "TESTING", "MERGED", 3);
      await eventually(() => theirs.applyTransition(merged, 13, now));
      // This process reads the other's writes a few milliseconds later, as one replica reads another's.
      await eventually(async () => {
        const seen = await contents(mine, now);
        expect(seen.timelines.map((t) => t.pr)).to.not.include(2);
        expect(seen.observations).to.include(`${merged.eventId}/pr_conclusion`);
      });
    } finally {
      await otherStore.close();
      await otherNc.close();
    }
  });

  it("gives a replica that read the observations before another one wrote or pruned what the store holds", async () => {
    const otherNc = await connect(nats.connectOptions());
    const otherStore = await openStore({ database: "metrics-state-test", nats: otherNc });
    try {
      const mine = await stores(store);
      const theirs = new MetricsState(await stores(otherStore));
      const now = 30 * MINUTE;
      const held = async (state: MetricsState, at: number) => (await contents(state, at)).observations.sort();
      const storeHolds = async () =>
        (await mine.observations.since(-Infinity)).observations.map((o) => o.id).sort();
      await held(theirs, now);
      // More writes than the generation document lists (256): their copy is read again in full.
      for (let n = 0; n < 300; n++) {
        const queue = { org: "acme", host: "github.com", owner: "acme", name: "widgets", branch: "main" };
        await mine.observations.put([
          {
            id: `w${n}/pr_wait`,
            queue,
            queueType: "main",
            kind: "pr_wait",
            label: null,
            value: n,
            at: n * 500,
          },
        ]);
        if (n === 3) await eventually(async () => expect(await held(theirs, now)).to.include("w3/pr_wait"));
      }
      await eventually(async () => expect(await held(theirs, now)).to.deep.equal(await storeHolds()));
      // Within the window the next test prunes, so that it finds only its own.
      await mine.observations.dropBefore(50_000);
      await eventually(async () => expect(await held(theirs, 0)).to.deep.equal(await storeHolds()));
      expect(await held(theirs, 0)).to.not.include("w60/pr_wait");
    } finally {
      await otherStore.close();
      await otherNc.close();
    }
  });

  it("forgets observations that left the window, in the store every replica reads", async () => {
    const later = 4 * MINUTE + 60 * MINUTE;
    const state = new MetricsState(await stores(store));
    expect((await contents(state, later - 1)).observations).to.not.deep.equal([]);
    await state.prune(later);
    expect((await contents(state, later)).observations).to.deep.equal([]);
    expect((await contents(state, 0)).observations).to.deep.equal([]);
  });
});
