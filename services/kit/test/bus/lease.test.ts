import { expect } from "chai";
import { InvalidArgumentError } from "../../src/errors/index.js";
import { LeaseKeeper, LeaseLostError, Leases } from "../../src/bus/index.js";
import { BusFixture, signal } from "./bus-fixture.js";

describe("queue lease", () => {
  const ttlMs = 10_000;
  let bus: BusFixture;
  let bucketCount = 0;
  // Each contender has its own clock so a test can let one of them see the lease as expired.
  const clocks = { a: 1_000_000, b: 1_000_000 };

  before(async () => {
    bus = await BusFixture.start();
  });
  after(async () => {
    await bus.stop();
  });
  beforeEach(() => {
    clocks.a = clocks.b = 1_000_000;
  });

  async function contenders(): Promise<{ a: Leases; b: Leases }> {
    bucketCount += 1;
    const bucket = `leases${bucketCount}`;
    const [one, two] = [await bus.connect(), await bus.connect()];
    return {
      a: await Leases.open(one.js, bucket, { owner: "coordinator-a", ttlMs, now: () => clocks.a }),
      b: await Leases.open(two.js, bucket, { owner: "coordinator-b", ttlMs, now: () => clocks.b }),
    };
  }

  it("gives a free key to the first contender and not to the second while the lease lives", async () => {
    const { a, b } = await contenders();
    const lease = await a.acquire("queue.q1");
    expect(lease).to.include({ key: "queue.q1", owner: "coordinator-a", expiresAt: clocks.a + ttlMs });
    expect(await b.acquire("queue.q1")).to.equal(undefined);
    clocks.b += ttlMs - 1;
    expect(await b.acquire("queue.q1")).to.equal(undefined);
    expect(await b.holder("queue.q1")).to.deep.equal({ owner: "coordinator-a", expiresAt: clocks.a + ttlMs });
  });

  it("lets the other contender take over only after expiry, after which the old owner cannot renew", async () => {
    const { a, b } = await contenders();
    await a.acquire("queue.q1");
    clocks.b += ttlMs;
    const taken = await b.acquire("queue.q1");
    expect(taken?.owner).to.equal("coordinator-b");
    const error = await a.renew("queue.q1").catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LeaseLostError);
    expect(await a.release("queue.q1")).to.equal(false);
    expect((await b.holder("queue.q1"))?.owner).to.equal("coordinator-b");
  });

  it("renewing pushes the expiry out, so a live owner keeps the key", async () => {
    const { a, b } = await contenders();
    await a.acquire("queue.q1");
    clocks.a += ttlMs - 1;
    const renewed = await a.renew("queue.q1");
    expect(renewed.expiresAt).to.equal(clocks.a + ttlMs);
    clocks.b += ttlMs; // past the first expiry, not the renewed one
    expect(await b.acquire("queue.q1")).to.equal(undefined);
  });

  it("release frees the key at once", async () => {
    const { a, b } = await contenders();
    await a.acquire("queue.q1");
    expect(await a.release("queue.q1")).to.equal(true);
    expect(await b.holder("queue.q1")).to.equal(undefined);
    expect((await b.acquire("queue.q1"))?.owner).to.equal("coordinator-b");
    expect(await a.renew("queue.q1").catch((e: unknown) => e)).to.be.instanceOf(LeaseLostError);
  });

  it("never lets two simultaneous contenders both win, for a free key or an expired one", async () => {
    const { a, b } = await contenders();
    for (let i = 0; i < 10; i++) {
      const free = await Promise.all([a.acquire(`race.${i}`), b.acquire(`race.${i}`)]);
      expect(
        free.filter((l) => l !== undefined),
        `free key ${i}`,
      ).to.have.length(1);
    }
    clocks.a += ttlMs;
    clocks.b += ttlMs;
    for (let i = 0; i < 10; i++) {
      const expired = await Promise.all([a.acquire(`race.${i}`), b.acquire(`race.${i}`)]);
      expect(
        expired.filter((l) => l !== undefined),
        `expired key ${i}`,
      ).to.have.length(1);
    }
  });

  it("acquiring again while holding the key extends the lease", async () => {
    const { a } = await contenders();
    await a.acquire("queue.q1");
    clocks.a += 5;
    expect((await a.acquire("queue.q1"))?.expiresAt).to.equal(clocks.a + ttlMs);
  });

  it("rejects keys the bucket cannot store", async () => {
    const { a } = await contenders();
    for (const key of ["", "has space", "wild.*", ".leading", "trailing."]) {
      expect(await a.acquire(key).catch((e: unknown) => e), key).to.be.instanceOf(InvalidArgumentError);
    }
  });

  describe("LeaseKeeper", () => {
    it("keeps renewing, and reports loss once another owner took the key", async () => {
      const { a, b } = await contenders();
      const first = await a.acquire("queue.q1");
      clocks.a += 1_000;
      const lost = signal<{ key: string; cause: unknown }>();
      const keeper = LeaseKeeper.start(a, "queue.q1", {
        renewEveryMs: 20,
        now: () => clocks.a,
        onLost: (key, cause) => lost.resolve({ key, cause }),
      });
      // The keeper renews with a's clock; wait until the stored expiry has moved.
      while ((await b.holder("queue.q1"))?.expiresAt === first?.expiresAt)
        await new Promise((r) => setTimeout(r, 10));
      clocks.b += 2 * ttlMs;
      // A renewal of a's keeper can win the compare-and-set against b's first try (more often on a loaded
      // machine); b takes the expired lease on a later try.
      let taken = await b.acquire("queue.q1");
      for (let tries = 0; taken?.owner !== "coordinator-b" && tries < 50; tries++)
        taken = await b.acquire("queue.q1");
      expect(taken?.owner).to.equal("coordinator-b");
      const { key, cause } = await lost.promise;
      expect(key).to.equal("queue.q1");
      expect(cause).to.be.instanceOf(LeaseLostError);
      expect(keeper.isActive).to.equal(false);
      expect((await b.holder("queue.q1"))?.owner).to.equal("coordinator-b");
    });

    it("stop with release hands the key over at once", async () => {
      const { a, b } = await contenders();
      await a.acquire("queue.q1");
      const keeper = LeaseKeeper.start(a, "queue.q1", { renewEveryMs: 20, onLost: () => undefined });
      await keeper.stop({ release: true });
      expect((await b.acquire("queue.q1"))?.owner).to.equal("coordinator-b");
    });

    it("refuses to keep a lease this process does not hold", async () => {
      const { a } = await contenders();
      expect(() =>
        LeaseKeeper.start(a, "queue.none", { renewEveryMs: 20, onLost: () => undefined }),
      ).to.throw(LeaseLostError);
    });
  });
});
