import { expect } from "chai";
import { connect } from "nats";
import { NatsServer, NatsServerMissingError } from "../src/nats-server.js";

describe("NatsServer fixture", () => {
  it("starts a JetStream-enabled server on a random port", async () => {
    const server = await NatsServer.start();
    try {
      const nc = await connect({ servers: server.url });
      const jsm = await nc.jetstreamManager();
      const info = await jsm.getAccountInfo();
      expect(info.limits).to.be.an("object");
      await nc.close();
      expect(server.port).to.not.equal(4222);
    } finally {
      await server.stop();
    }
  });

  it("fails with an install hint when the binary is missing", async () => {
    const saved = process.env.NATS_SERVER_BIN;
    process.env.NATS_SERVER_BIN = "/nonexistent/nats-server";
    try {
      let error: unknown;
      try {
        await NatsServer.start();
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(NatsServerMissingError);
      expect((error as Error).message).to.contain("apt-get install -y nats-server");
    } finally {
      if (saved === undefined) delete process.env.NATS_SERVER_BIN;
      else process.env.NATS_SERVER_BIN = saved;
    }
  });
});
