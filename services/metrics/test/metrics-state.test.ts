import { expect } from "chai";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { openStore, type Store } from "@mainline/kit/store/index";
import { MetricsState, type MetricsStores } from "../src/app/metrics-state.js";
import { ActiveRunStore } from "../src/store/active-run-store.js";
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
  });
  const contents = (state: MetricsState) => {
    const v = state.view();
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

  it("applies a redelivered event once, and a reload finds what was applied", async () => {
    const now = 30 * MINUTE;
    const state = await MetricsState.load(await stores(store), now);
    const submitted = transition(1, null, "PENDING", 0);
    const testing = transition(1, "PENDING", "TESTING", 4);
    for (const e of [submitted, testing, testing]) await state.applyTransition(e, now);
    const applied = contents(state);
    expect(applied.observations).to.deep.equal([`${testing.eventId}/pr_wait`]);
    expect(applied.timelines.map((t) => [t.state, t.testingSince])).to.deep.equal([["TESTING", 4 * MINUTE]]);

    const reloaded = await MetricsState.load(await stores(store), now);
    expect(contents(reloaded)).to.deep.equal(applied);
  });

  it("forgets observations that left the window, in memory and in the store", async () => {
    const later = 4 * MINUTE + 60 * MINUTE;
    const state = await MetricsState.load(await stores(store), later - 1);
    expect(contents(state).observations).to.have.length(1);
    await state.prune(later);
    expect(contents(state).observations).to.deep.equal([]);
    expect(contents(await MetricsState.load(await stores(store), 0)).observations).to.deep.equal([]);
  });
});
