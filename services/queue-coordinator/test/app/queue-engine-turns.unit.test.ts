import { expect } from "chai";
import { UnavailableError } from "@mainline/kit/errors/index";
import { QueueEngine, type EngineDeps } from "../../src/app/queue-engine.js";

/** serialized() uses none of the engine's stores: the order of one queue's steps is all it decides. */
const engine = () => new QueueEngine({} as EngineDeps);

describe("QueueEngine: one queue's steps, one at a time", () => {
  it("drops a step whose caller went away while it waited its turn, and runs the ones after it", async () => {
    const ran: string[] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const e = engine();
    const gone = new AbortController();
    const a = e.serialized("q", async () => {
      ran.push("a");
      await first;
    });
    const b = e.serialized("q", () => Promise.resolve(void ran.push("b")), gone.signal);
    const c = e.serialized("q", () => Promise.resolve(void ran.push("c")), new AbortController().signal);
    // The client of b times out while a still holds the queue (a write waiting for a stream leader).
    gone.abort();
    release();
    await a;
    const dropped = await b.then(
      () => undefined,
      (error: unknown) => error,
    );
    await c;
    expect(dropped).to.be.instanceOf(UnavailableError);
    expect(ran).to.deep.equal(["a", "c"]);
  });

  it("runs a step whose caller is still there, and one that started before its caller went away", async () => {
    const ran: string[] = [];
    const e = engine();
    const waiting = new AbortController();
    const started = new AbortController();
    await e.serialized("q", () => Promise.resolve(void ran.push("kept")), waiting.signal);
    await e.serialized(
      "q",
      async () => {
        started.abort();
        await Promise.resolve();
        ran.push("finished");
      },
      started.signal,
    );
    expect(ran).to.deep.equal(["kept", "finished"]);
  });
});
