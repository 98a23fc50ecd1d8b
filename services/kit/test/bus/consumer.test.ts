import { expect } from "chai";
import { setTimeout as sleep } from "node:timers/promises";
import { InvalidArgumentError, UnavailableError } from "../../src/errors/index.js";
import {
  consume,
  ensureConsumer,
  ensureStream,
  jsonCodec,
  publish,
  type ConsumerHandle,
  type ConsumerSpec,
  type Delivery,
} from "../../src/bus/index.js";
import { BusFixture, RecordingLogger, signal } from "./bus-fixture.js";

interface Job {
  id: string;
}

describe("bus consumer", () => {
  const codec = jsonCodec<Job>();
  let bus: BusFixture;
  const handles: ConsumerHandle[] = [];
  let streamCount = 0;
  let release = (): void => undefined;

  before(async () => {
    bus = await BusFixture.start();
  });
  after(async () => {
    await bus.stop();
  });
  afterEach(async () => {
    release();
    await Promise.all(handles.splice(0).map((h) => h.stop()));
    await bus.closeAll();
  });

  /** A fresh work-queue stream and consumer per test, so no test sees another's messages. */
  async function provision(spec: Partial<ConsumerSpec> = {}): Promise<{ stream: string; subject: string }> {
    streamCount += 1;
    const stream = `WORK${streamCount}`;
    const subject = `work${streamCount}.job`;
    const { jsm } = await bus.connect();
    await ensureStream(jsm, { name: stream, subjects: [`work${streamCount}.>`], retention: "workqueue" });
    await ensureConsumer(jsm, stream, { durable: "worker", ackWaitMs: 5_000, maxDeliver: 5, ...spec });
    return { stream, subject };
  }

  async function start(
    stream: string,
    handler: (d: Delivery<Job>) => Promise<void>,
    extra: { logger?: RecordingLogger; concurrency?: number } = {},
  ): Promise<ConsumerHandle> {
    const { js } = await bus.connect();
    const handle = await consume({ js, stream, durable: "worker", codec, handler, ...extra });
    handles.push(handle);
    return handle;
  }

  async function send(subject: string, id: string): Promise<void> {
    const { js } = await bus.connect();
    await publish(js, subject, codec, { id }, { msgId: `job:${id}` });
  }

  async function ackPending(stream: string): Promise<number> {
    const { jsm } = await bus.connect();
    return (await jsm.consumers.info(stream, "worker")).num_ack_pending;
  }

  it("hands the decoded message, its msgId and delivery count to the handler and acks it", async () => {
    const { stream, subject } = await provision();
    const seen = signal<Delivery<Job>>();
    await start(stream, (d) => {
      seen.resolve(d);
      return Promise.resolve();
    });
    await send(subject, "a");
    const delivery = await seen.promise;
    expect(delivery).to.include({ subject, msgId: "job:a", deliveryCount: 1 });
    expect(delivery.data).to.deep.equal({ id: "a" });
    await handles[0]!.stop();
    expect(await ackPending(stream)).to.equal(0);
    const { jsm } = await bus.connect();
    expect((await jsm.streams.info(stream)).state.messages).to.equal(0);
  });

  it("redelivers to a new consumer what a consumer that died mid-handler never acked", async () => {
    const { stream, subject } = await provision({ ackWaitMs: 300 });
    const started = signal();
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const dying = await bus.connect();
    const logger = new RecordingLogger();
    handles.push(
      await consume({
        js: dying.js,
        stream,
        durable: "worker",
        codec,
        logger,
        handler: () => {
          started.resolve();
          return stuck;
        },
      }),
    );
    await send(subject, "b");
    await started.promise;
    await dying.nc.close();

    const redelivered = signal<Delivery<Job>>();
    await start(stream, (d) => {
      redelivered.resolve(d);
      return Promise.resolve();
    });
    const delivery = await redelivered.promise;
    expect(delivery.data).to.deep.equal({ id: "b" });
    expect(delivery.msgId).to.equal("job:b");
    expect(delivery.deliveryCount).to.equal(2);
  });

  it("redelivers after the error's retry delay when the handler fails retryably", async () => {
    const { stream, subject } = await provision({ ackWaitMs: 10_000 });
    const deliveries: { count: number; at: number }[] = [];
    const done = signal();
    await start(
      stream,
      (d) => {
        deliveries.push({ count: d.deliveryCount, at: performance.now() });
        if (d.deliveryCount === 1) return Promise.reject(new UnavailableError("CI unreachable", 200));
        done.resolve();
        return Promise.resolve();
      },
      { logger: new RecordingLogger() },
    );
    await send(subject, "c");
    await done.promise;
    expect(deliveries.map((d) => d.count)).to.deep.equal([1, 2]);
    const waited = deliveries[1]!.at - deliveries[0]!.at;
    // Redelivered by the nak delay, not by the 10 s ack timeout.
    expect(waited).to.be.within(150, 5_000);
  });

  it("uses the consumer's backoff for that delivery when the error names no delay", async () => {
    const { stream, subject } = await provision({ ackWaitMs: 1_000, maxDeliver: 4, backoffMs: [150, 400] });
    const at: number[] = [];
    const done = signal();
    await start(
      stream,
      (d) => {
        at.push(performance.now());
        if (d.deliveryCount < 3) return Promise.reject(new Error("git push rejected"));
        done.resolve();
        return Promise.resolve();
      },
      { logger: new RecordingLogger() },
    );
    await send(subject, "h");
    await done.promise;
    expect(at).to.have.length(3);
    // Failing delivery 1 waits backoff[0], failing delivery 2 waits backoff[1].
    expect(at[1]! - at[0]!).to.be.at.least(130);
    expect(at[2]! - at[1]!).to.be.at.least(370);
  });

  it("never redelivers a message whose handler failed terminally", async () => {
    const { stream, subject } = await provision({ ackWaitMs: 200 });
    const logger = new RecordingLogger();
    const seen: string[] = [];
    const next = signal();
    await start(
      stream,
      (d) => {
        seen.push(d.data.id);
        if (d.data.id === "bad") return Promise.reject(new InvalidArgumentError("prs", "must not be empty"));
        next.resolve();
        return Promise.resolve();
      },
      { logger },
    );
    await send(subject, "bad");
    await send(subject, "good");
    await next.promise;
    await logger.waitFor("terminally");
    await sleep(500); // longer than ack_wait: a message still pending would be back by now
    expect(seen).to.deep.equal(["bad", "good"]);
    expect(await ackPending(stream)).to.equal(0);
  });

  it("stops redelivering once max deliver is reached", async () => {
    const { stream, subject } = await provision({ ackWaitMs: 200, maxDeliver: 3 });
    const logger = new RecordingLogger();
    const counts: number[] = [];
    await start(
      stream,
      (d) => {
        counts.push(d.deliveryCount);
        return Promise.reject(new UnavailableError("always down", 20));
      },
      { logger },
    );
    await send(subject, "d");
    await logger.waitFor("last allowed delivery");
    await sleep(500); // longer than ack_wait and the retry delay together
    expect(counts).to.deep.equal([1, 2, 3]);
    expect(logger.lines.filter((l) => l.msg.includes("will be redelivered"))).to.have.length(2);
  });

  it("terminates a message that cannot be decoded and carries on", async () => {
    const { stream, subject } = await provision({ ackWaitMs: 200 });
    const logger = new RecordingLogger();
    const seen: string[] = [];
    const good = signal();
    await start(
      stream,
      (d) => {
        seen.push(d.data.id);
        good.resolve();
        return Promise.resolve();
      },
      { logger },
    );
    const { js } = await bus.connect();
    await js.publish(subject, new TextEncoder().encode("{not json"), { msgID: "garbage" });
    await send(subject, "e");
    await good.promise;
    await logger.waitFor("could not be decoded");
    await sleep(400);
    expect(seen).to.deep.equal(["e"]);
    expect(await ackPending(stream)).to.equal(0);
  });

  it("runs at most `concurrency` handlers at once", async () => {
    const { stream, subject } = await provision();
    let running = 0;
    let most = 0;
    let handled = 0;
    const allHandled = signal();
    const threeRunning = signal();
    await start(
      stream,
      async () => {
        running += 1;
        most = Math.max(most, running);
        if (running === 3) threeRunning.resolve();
        await threeRunning.promise;
        running -= 1;
        handled += 1;
        if (handled === 7) allHandled.resolve();
      },
      { concurrency: 3 },
    );
    await Promise.all(["1", "2", "3", "4", "5", "6", "7"].map((id) => send(subject, id)));
    await allHandled.promise;
    expect(most).to.equal(3);
  });

  it("stop() waits for a running handler, whose message is then acked, and takes no more", async () => {
    const { stream, subject } = await provision();
    const started = signal();
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const handle = await start(stream, async (d) => {
      seen.push(d.data.id);
      started.resolve();
      await gate;
    });
    await send(subject, "f");
    await started.promise;
    let stopped = false;
    const stopping = handle.stop().then(() => (stopped = true));
    await sleep(100);
    expect(stopped).to.equal(false);
    release();
    await stopping;
    expect(await handle.closed).to.equal(undefined);
    await send(subject, "g");
    expect(await ackPending(stream)).to.equal(0);
    const { jsm } = await bus.connect();
    expect((await jsm.streams.info(stream)).state.messages).to.equal(1);
    expect(seen).to.deep.equal(["f"]);
  });

  it("refuses a concurrency below one and a consumer that does not exist", async () => {
    const { stream } = await provision();
    const { js } = await bus.connect();
    const handler = (): Promise<void> => Promise.resolve();
    const bad = await consume({ js, stream, durable: "worker", codec, handler, concurrency: 0 }).catch(
      (e: unknown) => e,
    );
    expect(bad).to.be.instanceOf(InvalidArgumentError);
    const missing = await consume({ js, stream, durable: "nobody", codec, handler }).catch((e: unknown) => e);
    expect(missing).to.be.instanceOf(Error);
  });
});
