import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { eventually, freePortBlock, RUN_COMPILED_ENV } from "@mainline/testing";
import { batchRunnerWorkDir } from "../../src/dev/batch-runner-work-dir.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** What `make dev` prints: readable lines, no JSON per request, no stack trace for a retried call at start. */
describe("make dev: its log on the terminal", function () {
  // The whole system starts from source in the hook (tsx compiles every service): about 45 s alone, over 90 s in a
  // clean-clone run held to half a core (README "Tests").
  this.timeout(600_000);
  let dataDir: string;
  let dev: ChildProcess | undefined;
  const lines: string[] = [];

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "mainline-dev-logs-"));
    const ports = await freePortBlock(8);
    const gateway = ports;
    // As the Makefile starts it, from source through tsx, services included: the one whole system in `make test`
    // that does not run the build's dist/ (RUN_COMPILED_ENV), so `make dev` itself stays covered.
    const { [RUN_COMPILED_ENV]: _compiled, ...env } = process.env;
    dev = spawn(
      process.execPath,
      ["--conditions=mainline-source", "--import", "tsx", "tools/src/dev/main.ts"],
      {
        cwd: root,
        env: {
          ...env,
          DEV_DATA_DIR: dataDir,
          GATEWAY_PORT: String(gateway),
          DEV_NATS_PORT: String(ports + 1),
          DEV_GRPC_BASE_PORT: String(ports + 1),
          LOG_LEVEL: "info",
          DEV_LOG_FORMAT: "",
          DEV_LOG_REQUESTS: "",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    for (const stream of [dev.stdout!, dev.stderr!])
      createInterface({ input: stream }).on("line", (l) => lines.push(l));
    await eventually(() => expect(lines.join("\n")).to.include("[dev] Mainline API:"), 540_000);
    const api = `http://127.0.0.1:${gateway}/v1`;
    expect((await fetch(`${api}/healthz`)).status).to.equal(200);
    expect((await fetch(`${api}/no-such-route`)).status).to.equal(404);
    await eventually(() => expect(lines.join("\n")).to.include("/v1/no-such-route → 404"));
  });
  after(async () => {
    if (dev && dev.exitCode === null) {
      const exited = once(dev, "exit");
      dev.kill("SIGINT");
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
    await rm(path.dirname(batchRunnerWorkDir(dataDir)), { recursive: true, force: true });
  });

  it("shows each service's lines as time, level and message, never raw JSON", () => {
    expect(lines.filter((l) => /^\[[\w-]+\] \{/.test(l))).to.deep.equal([]);
    expect(lines.join("\n")).to.match(/^\[gateway\] \d\d:\d\d:\d\d info {2}serving HTTP {2}port=\d+$/m);
  });

  it("leaves out successful requests and shows failed ones", () => {
    expect(lines.filter((l) => l.startsWith("[gateway]") && l.includes("/v1/healthz"))).to.deep.equal([]);
    expect(lines.join("\n")).to.match(
      /^\[gateway\] \d\d:\d\d:\d\d warn {2}GET \/v1\/no-such-route → 404 \(\d/m,
    );
  });

  it("prints no stack trace while the services come up", () => {
    expect(lines.filter((l) => /^\s+at /.test(l))).to.deep.equal([]);
  });
});
