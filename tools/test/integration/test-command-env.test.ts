import { expect } from "chai";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

// The variables a repository declares for its COMMAND runner, through the HTTP API: stored and returned, and
// refused with a 400 naming the field when they are malformed or would pose as Mainline's own settings.

describe("a repository's declared test-command variables (HTTP -> queue-coordinator)", function () {
  this.timeout(30_000);
  let coordinator: CoordinatorHarness;
  let gw: GatewayHarness;
  let token: string;
  const repo = { host: "git.example.com", owner: "acme", name: "env" };
  const connection = {
    repo,
    remoteUrl: "https://git.example.com/acme/env.git",
    runner: { kind: "COMMAND", command: "npm test", env: { NODE_OPTIONS: "--max-old-space-size=2048" } },
  };
  const call = async (path: string, body: unknown) => {
    const response = await gw.post(path, body, token);
    const text = await response.text();
    return { status: response.status, body: text.startsWith("{") ? (JSON.parse(text) as unknown) : text };
  };

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    gw = await GatewayHarness.start({ queue: coordinator.address });
    token = await gw.organization("acme");
  });
  after(async () => {
    await gw.stop();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("stores the variables and returns them with the connection", async () => {
    expect((await call("/repositories/connection", connection)).status).to.equal(200);
    const stored = await call("/repositories/getConnection", { repo });
    expect((stored.body as { runner: unknown }).runner).to.deep.include({ env: connection.runner.env });
  });

  it("refuses malformed, oversized and Mainline-looking variables with a 400 naming the field, and keeps what was stored", async () => {
    const before = await call("/repositories/getConnection", { repo });
    const tooMany = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, "x"]));
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ "1BAD": "x" }, /^runner\.env.*: variable names must match/],
      [{ "A-B": "x" }, /^runner\.env.*: variable names must match/],
      [{ BIG: "x".repeat(4097) }, /^runner\.env\.BIG: must be at most 4096/],
      [tooMany, /^runner\.env: must have at most 64 variables/],
      [{ NATS_URL: "nats://evil:4222" }, /^runner\.env\.NATS_URL: is reserved for Mainline/],
      [{ MONGODB_URI: "mongodb://x" }, /^runner\.env\.MONGODB_URI: is reserved for Mainline/],
      [{ QUEUE_COORDINATOR_ADDR: "x:1" }, /^runner\.env\.QUEUE_COORDINATOR_ADDR: is reserved for Mainline/],
      [{ MAINLINE_TEST_RUN_ID: "forged" }, /^runner\.env\.MAINLINE_TEST_RUN_ID: is reserved for Mainline/],
      [{ DEV_API_TOKEN: "x" }, /^runner\.env\.DEV_API_TOKEN: is reserved for Mainline/],
      [{ PATH: "/evil" }, /^runner\.env\.PATH: is set by the runner/],
      [{ HOME: "/root" }, /^runner\.env\.HOME: is set by the runner/],
      [{ NUL: "a\u0000b" }, /^runner\.env\.NUL: must not contain a NUL character/],
    ];
    for (const [env, message] of cases) {
      const refused = await call("/repositories/connection", {
        ...connection,
        runner: { ...connection.runner, env },
      });
      const name = Object.keys(env)[0]!;
      expect(refused.status, name).to.equal(400);
      expect(JSON.stringify(refused.body), name).to.match(new RegExp(message.source.replace("^", "")));
    }
    expect((await call("/repositories/getConnection", { repo })).body).to.deep.equal(before.body);
  });
});
