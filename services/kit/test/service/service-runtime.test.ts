import { expect } from "chai";
import { NatsServer, rejection } from "@mainline/testing";
import { ConfigError } from "../../src/config/index.js";
import { startServiceRuntime } from "../../src/service/index.js";

describe("startServiceRuntime: the NATS login", function () {
  this.timeout(20_000);
  let server: NatsServer;

  before(async () => {
    server = await NatsServer.start();
  });
  after(() => server.stop());

  it("connects with NATS_USER and NATS_PASSWORD", async () => {
    const runtime = await startServiceRuntime({
      name: "runtime-test",
      natsUrl: server.url,
      natsUser: server.credentials.user,
      natsPassword: server.credentials.pass,
      logLevel: "silent",
    });
    try {
      expect(runtime.nats.isClosed()).to.equal(false);
    } finally {
      await runtime.store.close();
      await runtime.nats.close();
    }
  });

  it("refuses a user without a password (and the reverse), naming the missing variable", async () => {
    for (const [options, missing] of [
      [{ natsUser: "someone" }, "NATS_PASSWORD"],
      [{ natsPassword: "secret" }, "NATS_USER"],
    ] as const) {
      const error = await rejection(
        startServiceRuntime({ name: "runtime-test", natsUrl: server.url, logLevel: "silent", ...options }),
      );
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).problems[0]).to.match(new RegExp(`^${missing}: `));
    }
  });
});
