import { expect } from "chai";
import { skipBecause } from "@mainline/testing";
import { nanos } from "nats";
import { FailedPreconditionError, InvalidArgumentError } from "../../src/errors/index.js";
import { ensureConsumer, ensureStream, type StreamSpec } from "../../src/bus/index.js";
import { BusFixture } from "./bus-fixture.js";

describe("bus provisioning", () => {
  let bus: BusFixture;
  before(async () => {
    bus = await BusFixture.start();
  });
  after(async () => {
    await bus.stop();
  });
  afterEach(async () => {
    await bus.closeAll();
  });

  const jobs: StreamSpec = {
    name: "JOBS",
    subjects: ["jobs.>"],
    retention: "workqueue",
    duplicateWindowMs: 60_000,
  };

  describe("ensureStream", () => {
    it("creates a stream once and leaves it alone on the next call", async () => {
      const { jsm } = await bus.connect();
      const first = await ensureStream(jsm, jobs);
      const second = await ensureStream(jsm, jobs);
      expect(first.action).to.equal("created");
      expect(second.action).to.equal("unchanged");
      expect(second.info.config.retention).to.equal("workqueue");
      expect(second.info.config.duplicate_window).to.equal(nanos(60_000));
      expect((await jsm.streams.names().next()).filter((n) => n === "JOBS")).to.have.length(1);
    });

    it("treats subjects as a set", async () => {
      const { jsm } = await bus.connect();
      const spec: StreamSpec = { name: "SET", subjects: ["a.x", "a.y"], retention: "limits" };
      await ensureStream(jsm, spec);
      expect((await ensureStream(jsm, { ...spec, subjects: ["a.y", "a.x"] })).action).to.equal("unchanged");
    });

    it("applies changed subjects and max age", async () => {
      const { jsm } = await bus.connect();
      const spec: StreamSpec = { name: "EVENTS", subjects: ["events.pr.>"], retention: "limits" };
      await ensureStream(jsm, spec);
      const changed = await ensureStream(jsm, {
        ...spec,
        subjects: ["events.pr.>", "events.run.>"],
        maxAgeMs: 3_600_000,
      });
      expect(changed.action).to.equal("updated");
      const info = await jsm.streams.info("EVENTS");
      expect(info.config.subjects).to.have.members(["events.pr.>", "events.run.>"]);
      expect(info.config.max_age).to.equal(nanos(3_600_000));
      expect(
        (await ensureStream(jsm, { ...spec, subjects: ["events.pr.>", "events.run.>"], maxAgeMs: 3_600_000 }))
          .action,
      ).to.equal("unchanged");
    });

    it("refuses to change retention of a live stream", async () => {
      const { jsm } = await bus.connect();
      await ensureStream(jsm, { name: "RET", subjects: ["ret.>"], retention: "limits" });
      const error = await ensureStream(jsm, {
        name: "RET",
        subjects: ["ret.>"],
        retention: "workqueue",
      }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(FailedPreconditionError);
      expect((error as Error).message).to.include("retention");
    });

    it("rejects a bad spec before talking to the server", async () => {
      const { jsm } = await bus.connect();
      for (const [spec, field] of [
        [{ ...jobs, name: "has.dot" }, "name"],
        [{ ...jobs, subjects: [] }, "subjects"],
        [{ ...jobs, maxAgeMs: -1 }, "maxAgeMs"],
        [{ ...jobs, duplicateWindowMs: 1.5 }, "duplicateWindowMs"],
      ] as const) {
        const error = await ensureStream(jsm, spec).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).field).to.equal(field);
      }
    });

    it("reports a server refusal as a failed precondition", async () => {
      const { jsm } = await bus.connect();
      await ensureStream(jsm, { name: "OWNER", subjects: ["owned.>"], retention: "limits" });
      const error = await ensureStream(jsm, {
        name: "THIEF",
        subjects: ["owned.>"],
        retention: "limits",
      }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(FailedPreconditionError);
      expect((error as Error).message).to.include("THIEF");
    });
  });

  describe("ensureConsumer", () => {
    it("creates a durable explicit-ack consumer once", async () => {
      const { jsm } = await bus.connect();
      await ensureStream(jsm, jobs);
      const spec = { durable: "runner", filterSubjects: ["jobs.run"], ackWaitMs: 5_000, maxDeliver: 5 };
      const first = await ensureConsumer(jsm, "JOBS", spec);
      const second = await ensureConsumer(jsm, "JOBS", spec);
      expect([first.action, second.action]).to.deep.equal(["created", "unchanged"]);
      const { config } = second.info;
      expect(config.ack_policy).to.equal("explicit");
      expect(config.deliver_policy).to.equal("all");
      expect(config.filter_subject).to.equal("jobs.run");
      expect(config.ack_wait).to.equal(nanos(5_000));
      expect(config.max_deliver).to.equal(5);
    });

    it("applies a changed ack wait, max deliver and backoff", async () => {
      const { jsm } = await bus.connect();
      await ensureStream(jsm, jobs);
      await ensureConsumer(jsm, "JOBS", {
        durable: "merger",
        filterSubjects: ["jobs.merge"],
        ackWaitMs: 5_000,
        maxDeliver: 5,
      });
      const changed = await ensureConsumer(jsm, "JOBS", {
        durable: "merger",
        filterSubjects: ["jobs.merge"],
        ackWaitMs: 2_000,
        maxDeliver: 8,
      });
      expect(changed.action).to.equal("updated");
      expect(changed.info.config.ack_wait).to.equal(nanos(2_000));
      expect(changed.info.config.max_deliver).to.equal(8);
      const backoff = {
        durable: "merger",
        filterSubjects: ["jobs.merge"],
        ackWaitMs: 1_000,
        maxDeliver: 8,
        backoffMs: [1_000, 5_000],
      };
      const withBackoff = await ensureConsumer(jsm, "JOBS", backoff);
      expect(withBackoff.action).to.equal("updated");
      expect(withBackoff.info.config.backoff).to.deep.equal([nanos(1_000), nanos(5_000)]);
      expect((await ensureConsumer(jsm, "JOBS", backoff)).action).to.equal("unchanged");
    });

    it("sets and changes max ack pending when asked, and leaves the server's default otherwise", async () => {
      const { jsm } = await bus.connect();
      await ensureStream(jsm, jobs);
      const spec = { durable: "ordered", filterSubjects: ["jobs.ordered"], ackWaitMs: 1_000, maxDeliver: 5 };
      const plain = await ensureConsumer(jsm, "JOBS", spec);
      expect(plain.info.config.max_ack_pending).to.equal(1000);
      const one = await ensureConsumer(jsm, "JOBS", { ...spec, maxAckPending: 1 });
      expect(one.action).to.equal("updated");
      expect(one.info.config.max_ack_pending).to.equal(1);
      expect((await ensureConsumer(jsm, "JOBS", { ...spec, maxAckPending: 1 })).action).to.equal("unchanged");
    });

    it("refuses several filter subjects on a server that would ignore them, leaving no consumer behind", async function () {
      const { jsm, nc } = await bus.connect();
      const [major = 0, minor = 0] = nc.info?.version.split(".").map(Number) ?? [];
      if (major > 2 || (major === 2 && minor >= 10))
        skipBecause(
          this,
          `nats-server ${nc.info?.version} is 2.10 or later; only older servers ignore filter_subjects`,
        );
      await ensureStream(jsm, { name: "MULTI", subjects: ["m.>"], retention: "limits" });
      const spec = { durable: "both", filterSubjects: ["m.a", "m.b"], ackWaitMs: 1_000, maxDeliver: 2 };
      const error = await ensureConsumer(jsm, "MULTI", spec).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(FailedPreconditionError);
      expect((error as Error).message).to.include("2.10");
      expect(await jsm.consumers.info("MULTI", "both").catch(() => undefined)).to.equal(undefined);
    });

    it("fails clearly when the stream does not exist", async () => {
      const { jsm } = await bus.connect();
      const error = await ensureConsumer(jsm, "NOPE", {
        durable: "x",
        ackWaitMs: 1_000,
        maxDeliver: 2,
      }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(FailedPreconditionError);
      expect((error as Error).message).to.include("NOPE");
    });

    it("rejects a bad spec", async () => {
      const { jsm } = await bus.connect();
      for (const [spec, field] of [
        [{ durable: "a.b", ackWaitMs: 1_000, maxDeliver: 2 }, "durable"],
        [{ durable: "ok", ackWaitMs: 0, maxDeliver: 2 }, "ackWaitMs"],
        [{ durable: "ok", ackWaitMs: 1_000, maxDeliver: 0 }, "maxDeliver"],
        [{ durable: "ok", ackWaitMs: 1_000, maxDeliver: 2, backoffMs: [100, 200] }, "backoffMs"],
        [{ durable: "ok", ackWaitMs: 1_000, maxDeliver: 2, maxAckPending: 0 }, "maxAckPending"],
      ] as const) {
        const error = await ensureConsumer(jsm, "JOBS", spec).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(InvalidArgumentError);
        expect((error as InvalidArgumentError).field).to.equal(field);
      }
    });
  });
});
