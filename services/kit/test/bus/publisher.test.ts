import { expect } from "chai";
import { InvalidArgumentError } from "../../src/errors/index.js";
import { ensureStream, jsonCodec, publish } from "../../src/bus/index.js";
import { BusFixture } from "./bus-fixture.js";

interface RunRequested {
  runId: string;
  prs: number[];
}

describe("bus publish", () => {
  const codec = jsonCodec<RunRequested>();
  let bus: BusFixture;
  before(async () => {
    bus = await BusFixture.start();
    const { jsm } = await bus.connect();
    await ensureStream(jsm, { name: "JOBS", subjects: ["jobs.>"], retention: "workqueue" });
  });
  after(async () => {
    await bus.stop();
  });

  it("stores a message republished with the same msgId once and flags the repeat as duplicate", async () => {
    const { js, jsm } = await bus.connect();
    const before = (await jsm.streams.info("JOBS")).state.messages;
    const message = { runId: "r-1", prs: [7, 9] };
    const first = await publish(js, "jobs.run", codec, message, { msgId: "run-requested:r-1" });
    const again = await publish(js, "jobs.run", codec, message, { msgId: "run-requested:r-1" });
    expect(first.duplicate).to.equal(false);
    expect(again.duplicate).to.equal(true);
    expect(again.seq).to.equal(first.seq);
    expect((await jsm.streams.info("JOBS")).state.messages).to.equal(before + 1);
  });

  it("stores messages with different msgIds separately, payload and id intact", async () => {
    const { js, jsm } = await bus.connect();
    const a = await publish(
      js,
      "jobs.run",
      codec,
      { runId: "r-2", prs: [1] },
      { msgId: "run-requested:r-2" },
    );
    const b = await publish(
      js,
      "jobs.run",
      codec,
      { runId: "r-3", prs: [2] },
      { msgId: "run-requested:r-3" },
    );
    expect(b.seq).to.be.greaterThan(a.seq);
    const stored = await jsm.streams.getMessage("JOBS", { seq: a.seq });
    expect(codec.decode(stored.data)).to.deep.equal({ runId: "r-2", prs: [1] });
    expect(stored.header.get("Nats-Msg-Id")).to.equal("run-requested:r-2");
  });

  it("refuses an empty msgId, since without one a republish could not be deduplicated", async () => {
    const { js } = await bus.connect();
    const error = await publish(js, "jobs.run", codec, { runId: "r-4", prs: [] }, { msgId: " " }).catch(
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(InvalidArgumentError);
  });

  it("fails when no stream takes the subject", async () => {
    const { js } = await bus.connect();
    const error = await publish(
      js,
      "nowhere.run",
      codec,
      { runId: "r-5", prs: [] },
      { msgId: "x", timeoutMs: 1_000 },
    ).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error);
  });
});
