import { expect } from "chai";
import { eventually } from "@mainline/testing";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const queue = { repo: { host: "github.com", owner: "acme", name: "widgets" }, targetBranch: "main" };

/**
 * Issue 17: the planner's queue state and mode notices reach someone. The coordinator publishes them as
 * QueueLifecycleEvent through its outbox, and an open queue page hears them (server-sent events) and re-reads.
 */
describe("a queue's state change reaches its open pages (coordinator -> NATS -> gateway feed)", function () {
  this.timeout(30_000);
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let token: string;

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    gw = await GatewayHarness.start({ queue: coordinator.address }, { nats: coordinator.nats });
    token = await gw.organization("acme");
  });
  after(async () => {
    await gw?.stop();
    await coordinator?.stop();
    await coordinator?.nats.stop();
  });

  it("streams a notice of kind queue when the queue is paused and when its mode changes", async () => {
    expect((await gw.post("/createQueue", queue, token)).status).to.equal(200);
    const signIn = await fetch(`${gw.origin}/ui/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
    const controller = new AbortController();
    const stream = await fetch(`${gw.origin}/ui/events?repo=github.com/acme/widgets&branch=main`, {
      headers: { cookie },
      signal: controller.signal,
    });
    expect(stream.status).to.equal(200);
    const notices: unknown[] = [];
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    const reading = (async () => {
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (data) notices.push(JSON.parse(data));
        }
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await gw.post("/updateQueue", { ...queue, state: "PAUSED" }, token)).status).to.equal(200);
      const notice = { org: "acme", repo: "github.com/acme/widgets", branch: "main", kind: "queue" };
      // A repeated publish of the same outbox entry (the stream drops it, a plain subscriber hears it) may add a
      // second, identical notice: a page re-reads once more, which is harmless.
      const paused = await eventually(() => {
        expect(notices).to.not.be.empty;
        expect(
          notices.every((n) => JSON.stringify(n) === JSON.stringify(notice)),
          JSON.stringify(notices),
        ).to.be.true;
        return notices.length;
      }, 5_000);
      expect((await gw.post("/updateQueue", { ...queue, mode: "PARALLEL" }, token)).status).to.equal(200);
      await eventually(() => expect(notices.length).to.be.above(paused), 5_000);
      expect(notices.every((n) => JSON.stringify(n) === JSON.stringify(notice))).to.be.true;
    } finally {
      controller.abort();
      await reading;
    }
  });
});
