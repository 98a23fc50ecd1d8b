import { expect } from "chai";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { TestRunOutcome } from "@mainline/proto/queue";
import { RemoteFixture } from "../git/remote-fixture.js";
import { BatchRunnerFixture, commandRunner, newRunId } from "./batch-runner-fixture.js";

const natsPackage = createRequire(import.meta.url).resolve("nats");

/**
 * PR code playing the attacker: it uses whatever bus address and credentials its environment holds
 * (else the address it was told), and tries to forge a test-run result.
 */
const PROBE = `
const { connect, StringCodec } = require(${JSON.stringify(natsPackage)});
(async () => {
  const servers = process.env.NATS_URL || process.argv[2];
  try {
    const nc = await connect({ servers, user: process.env.NATS_USER, pass: process.env.NATS_PASSWORD, reconnect: false });
    nc.publish("mainline.results.test-run", StringCodec().encode("forged"));
    await nc.flush();
    await nc.close();
    console.log("probe: PUBLISHED");
  } catch (error) {
    console.log("probe: REFUSED " + (error.code || error.message));
  }
})();
`;

describe("batch-runner: a test command is untrusted", () => {
  let service: BatchRunnerFixture;
  let fx: RemoteFixture;
  let probe: string;
  // What the batch-runner's own environment holds under make dev, compose or the Helm chart.
  let secrets: Record<string, string>;
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    service = await BatchRunnerFixture.start();
    secrets = {
      ...service.server.serviceEnv(),
      MONGODB_URI: "mongodb://mainline:db-secret-4711@mongodb:27017/mainline",
      DEV_API_TOKEN: "mlt_dev-admin-token-0815",
      QUEUE_COORDINATOR_ADDR: "127.0.0.1:50051",
      FLAKY_ANALYTICS_ADDR: "127.0.0.1:50053",
    };
    for (const [name, value] of Object.entries(secrets)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    fx = await RemoteFixture.create();
    probe = join(fx.root, "probe.cjs");
    await writeFile(probe, PROBE);
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
  });
  after(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await fx.dispose();
    await service.stop();
  });

  it("a command that dumps its environment finds no secret, and its publish on the bus is refused", async () => {
    const runId = newRunId("untrusted");
    const storedBefore = await service.resultsStored();
    await service.publishTestRunJob(
      service.testRunJob(
        fx,
        runId,
        [{ number: 1 }],
        // Fails on purpose, so that its output comes back in the result's message.
        commandRunner(`env; node ${probe} ${service.server.url}; exit 1`),
      ),
    );

    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.FAILED);
    expect(result.message).to.contain("MAINLINE_TEST_RUN_ID=").and.to.contain("CI=true");
    for (const [name, value] of Object.entries(secrets)) {
      expect(result.message, name).not.to.contain(`${name}=`);
      // The user name is no secret (and "mainline" is everywhere); every other value is.
      if (name !== "NATS_USER") expect(result.message, name).not.to.contain(value);
    }
    expect(result.message).not.to.match(/^[A-Z_]+_ADDR=/m);
    expect(result.message).to.contain("probe: REFUSED AUTHORIZATION_VIOLATION");
    // Only the runner's own messages reached the results stream: the pushed notice and the result.
    expect(await service.resultsStored()).to.equal(storedBefore + 2);
  });

  it("gives the command the variables its repository declares, but not in place of PATH, HOME or CI", async () => {
    const runId = newRunId("declared-env");
    await service.publishTestRunJob(
      service.testRunJob(
        fx,
        runId,
        [{ number: 1 }],
        commandRunner('test "$GREETING" = "hello world" && test "$CI" = true && test "$PATH" != /evil', [], {
          GREETING: "hello world",
          PATH: "/evil",
          CI: "false",
        }),
      ),
    );
    const result = await service.testRunResults.first(runId);
    expect(result.outcome, result.message).to.equal(TestRunOutcome.PASSED);
  });
});
