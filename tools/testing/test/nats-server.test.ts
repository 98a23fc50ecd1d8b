import { expect } from "chai";
import { connect } from "nats";
import { NatsServer, NatsServerMissingError } from "../src/nats-server.js";

describe("NatsServer fixture", () => {
  it("starts a JetStream-enabled server on a random port", async () => {
    const server = await NatsServer.start();
    try {
      const nc = await connect(server.connectOptions());
      const jsm = await nc.jetstreamManager();
      const info = await jsm.getAccountInfo();
      expect(info.limits).to.be.an("object");
      await nc.close();
      expect(server.port).to.not.equal(4222);
    } finally {
      await server.stop();
    }
  });

  it("refuses a connection without credentials or with a wrong password", async () => {
    const server = await NatsServer.start();
    try {
      for (const options of [{}, { user: server.credentials.user, pass: "wrong" }]) {
        const error = await connect({ servers: server.url, reconnect: false, ...options }).then(
          async (nc) => {
            await nc.close();
            return undefined;
          },
          (e: unknown) => e,
        );
        expect((error as { code?: string } | undefined)?.code).to.equal("AUTHORIZATION_VIOLATION");
      }
    } finally {
      await server.stop();
    }
  });

  it("holds a user to its permissions", async () => {
    const server = await NatsServer.start({
      users: [
        { user: "admin", password: "admin-password" },
        {
          user: "narrow",
          password: "narrow-password",
          permissions: { publish: { allow: ["allowed.>"] }, subscribe: { allow: ["_INBOX.>"] } },
        },
      ],
    });
    try {
      const admin = await connect(server.connectOptions());
      const seen: string[] = [];
      const sub = admin.subscribe(">", { callback: (_e, msg) => seen.push(msg.subject) });
      await admin.flush();
      const narrow = await connect({ servers: server.url, user: "narrow", pass: "narrow-password" });
      const errors: string[] = [];
      void (async () => {
        for await (const status of narrow.status())
          errors.push(`${status.type} ${typeof status.data === "string" ? status.data : ""}`.trim());
      })();
      narrow.publish("allowed.one");
      narrow.publish("denied.one");
      await narrow.flush();
      await admin.flush();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).to.deep.equal(["allowed.one"]);
      expect(errors).to.include("error PERMISSIONS_VIOLATION");
      sub.unsubscribe();
      await narrow.close();
      await admin.close();
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
