import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { z } from "zod";
import { commonConfig, ConfigError, loadConfig, port } from "../../src/config/index.js";

const schema = z.object({ ...commonConfig, GRPC_PORT: port(50051) });

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

  it("rejects an out-of-range port", () => {
    expect(() => loadConfig(schema, { GRPC_PORT: "70000" })).to.throw(ConfigError, /GRPC_PORT/);
  });

  it("makes a service exit non-zero with one line naming the variable", function () {
    this.timeout(30_000);
    const run = spawnSync(
      process.execPath,
      ["--conditions=mainline-source", "--import", "tsx", "services/metrics/src/main.ts"],
      { env: { ...process.env, GRPC_PORT: "not-a-port" }, encoding: "utf8" },
    );
    expect(run.status).to.equal(2);
    expect(run.stderr.trim().split("\n")).to.deep.equal([
      'metrics: bad configuration: GRPC_PORT: expected an integer from 1 to 65535 (got "not-a-port")',
    ]);
  });
});
