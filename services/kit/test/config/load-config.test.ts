import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { z } from "zod";
import { address, commonConfig, ConfigError, loadConfig, natsServers, port } from "../../src/config/index.js";
import { nodeEntryArgs } from "@mainline/testing";

const schema = z.object({ ...commonConfig, GRPC_PORT: port(50051), PEER_ADDR: address("127.0.0.1:50051") });

describe("loadConfig", () => {
  it("applies defaults when variables are unset", () => {
    const config = loadConfig(schema, {});
    expect(config.GRPC_PORT).to.equal(50051);
    expect(config.NATS_URL).to.equal("nats://127.0.0.1:4222");
    expect(config.MONGODB_URI).to.equal(undefined);
  });

  it("names every bad variable with the expected form", () => {
    let error: unknown;
    try {
      loadConfig(schema, { GRPC_PORT: "abc", NATS_URL: "localhost", MONGODB_URI: "postgres://x" });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).to.have.length(3);
    expect(problems.find((p) => p.startsWith("GRPC_PORT:")))
      .to.contain("integer from 1 to 65535")
      .and.contain('"abc"');
    expect(problems.find((p) => p.startsWith("NATS_URL:"))).to.contain("nats://");
    expect(problems.find((p) => p.startsWith("MONGODB_URI:"))).to.contain("mongodb://");
  });

  it("reads an empty optional setting as unset, as docker-compose passes `${VAR:-}` (the embedded store, no tracing)", () => {
    const config = loadConfig(schema, { MONGODB_URI: "", OTEL_EXPORTER_OTLP_ENDPOINT: "" });
    expect(config.MONGODB_URI).to.equal(undefined);
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).to.equal(undefined);
    const set = loadConfig(schema, { MONGODB_URI: "mongodb://db:27017/x" });
    expect(set.MONGODB_URI).to.equal("mongodb://db:27017/x");
  });

  it("takes every node of a NATS cluster in NATS_URL, and NATS_REPLICAS from 1 to 5 (1 when unset)", () => {
    const cluster = "nats://10.0.0.1:4222,nats://10.0.0.2:4222,nats://10.0.0.3:4222";
    const config = loadConfig(schema, { NATS_URL: cluster, NATS_REPLICAS: "3" });
    expect(natsServers(config.NATS_URL)).to.deep.equal(cluster.split(","));
    expect(config.NATS_REPLICAS).to.equal(3);
    expect(loadConfig(schema, {}).NATS_REPLICAS).to.equal(1);
    for (const bad of ["0", "6", "2.5", "three"])
      expect(() => loadConfig(schema, { NATS_REPLICAS: bad }), bad).to.throw(
        ConfigError,
        /NATS_REPLICAS: expected a whole number from 1 to 5/,
      );
    expect(() => loadConfig(schema, { NATS_URL: "nats://a:4222,localhost:4222" })).to.throw(
      ConfigError,
      /NATS_URL/,
    );
  });

  it("takes one host:port of another service, or several ip:port of its replicas", () => {
    expect(loadConfig(schema, { PEER_ADDR: "coordinator:50051" }).PEER_ADDR).to.equal("coordinator:50051");
    const replicas = "127.0.0.1:50051,127.0.0.1:50056";
    expect(loadConfig(schema, { PEER_ADDR: replicas }).PEER_ADDR).to.equal(replicas);
    // grpc-js lists only IP addresses; a host name resolves to its replicas through DNS instead.
    expect(() => loadConfig(schema, { PEER_ADDR: "a:50051,b:50051" })).to.throw(ConfigError, /PEER_ADDR/);
  });

  it("rejects an out-of-range port", () => {
    expect(() => loadConfig(schema, { GRPC_PORT: "70000" })).to.throw(ConfigError, /GRPC_PORT/);
  });

  it("makes a service exit non-zero with one line naming the variable", function () {
    this.timeout(30_000);
    const run = spawnSync(process.execPath, nodeEntryArgs("services/metrics/src/main.ts"), {
      env: { ...process.env, GRPC_PORT: "not-a-port" },
      encoding: "utf8",
    });
    expect(run.status).to.equal(2);
    expect(run.stderr.trim().split("\n")).to.deep.equal([
      'metrics: bad configuration: GRPC_PORT: expected an integer from 1 to 65535 (got "not-a-port")',
    ]);
  });
});
