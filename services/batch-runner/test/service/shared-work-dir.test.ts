import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connect, type NatsConnection } from "nats";
import { publish } from "@mainline/kit/bus/index";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";
import { STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import { eventually, freePort, NatsServer, nodeEntryArgs } from "@mainline/testing";
import { TestRunJob, TestRunOutcome, TestRunResult } from "@mainline/proto/queue";
import { RemoteFixture } from "../git/remote-fixture.js";
import { BatchRunnerFixture, commandRunner, newRunId, testRunJobFor } from "./batch-runner-fixture.js";
import { BusInbox } from "./bus-inbox.js";

const ENTRY = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/** The real batch-runner as its own process (as `make dev` and the image run it), on `nats`. */
async function startProcess(nats: NatsServer, workDir: string): Promise<ChildProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, nodeEntryArgs(ENTRY), {
    env: {
      ...process.env,
      ...nats.serviceEnv(),
      GRPC_PORT: String(port),
      BATCH_RUNNER_WORK_DIR: workDir,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // Health is served once the job handling has started (work folder claimed, consumers up).
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`batch-runner exited with ${child.exitCode}`);
    expect(await checkGrpcHealth(`127.0.0.1:${port}`, 200)).to.equal(true);
  }, 30_000);
  return child;
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

// The command marks that it started, then waits for the test's go: whatever the test does meanwhile happens
// while the run is under way. It passes only if the PR's file is still in its worktree at the end.
const WAIT_FOR_GO =
  'touch "$MARK/started"; while [ ! -e "$MARK/go" ]; do sleep 0.1; done; test -f one.txt && echo "one.txt is here"';

describe("batch-runner: one machine, several batch-runners", function () {
  this.timeout(120_000);
  const made: string[] = [];
  let fx: RemoteFixture;
  let mark: string;

  beforeEach(async () => {
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    mark = await mkdtemp(join(tmpdir(), "mainline-mark-"));
    made.push(mark);
  });
  afterEach(async () => {
    await fx.dispose();
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  describe("two instances given the same work dir (two make dev, the default temp folder)", () => {
    const children: ChildProcess[] = [];
    const servers: NatsServer[] = [];
    let nc: NatsConnection | undefined;
    let results: BusInbox<TestRunResult> | undefined;
    after(async () => {
      await results?.stop();
      await nc?.close();
      for (const child of children) await stopProcess(child);
      for (const server of servers) await server.stop();
    });

    it("a second one starting while the first runs a PR leaves its worktree alone: the PR passes", async () => {
      const shared = await mkdtemp(join(tmpdir(), "mainline-shared-work-"));
      made.push(shared);
      const first = await NatsServer.start();
      servers.push(first);
      children.push(await startProcess(first, shared));
      nc = await connect(first.connectOptions());
      const [js, jsm] = [nc.jetstream(), await nc.jetstreamManager()];
      results = await BusInbox.open({
        js,
        jsm,
        stream: STREAMS.results.name,
        subject: SUBJECTS.testRunResult,
        durable: "test-coordinator-runs",
        codec: TestRunResult,
        keyOf: (r) => r.testRunId,
      });
      const runId = newRunId("shared");
      const job = testRunJobFor(fx, runId, [{ number: 1 }], commandRunner(WAIT_FOR_GO, [], { MARK: mark }));
      await publish(js, SUBJECTS.testRunJob, TestRunJob, job, { msgId: `test-run-job:${runId}` });
      await eventually(() => expect(existsSync(join(mark, "started"))).to.equal(true), 30_000);

      const second = await NatsServer.start();
      servers.push(second);
      children.push(await startProcess(second, shared));
      await writeFile(join(mark, "go"), "");

      const result = await results.first(runId);
      expect(result.outcome, result.message).to.equal(TestRunOutcome.PASSED);
      // Each took a folder of its own in the shared work dir.
      expect((await readdir(shared)).filter((name) => name.endsWith(".owner")).sort()).to.deep.equal([
        "replica-0.owner",
        "replica-1.owner",
      ]);
    });
  });

  describe("a worktree that vanishes mid-run", () => {
    let service: BatchRunnerFixture;
    before(async () => {
      service = await BatchRunnerFixture.start();
    });
    after(() => service.stop());

    it("is an infrastructure error: the run is tried again and passes, not TESTS_FAILED", async () => {
      const runId = newRunId("vanished");
      // Only the first attempt waits (and has its worktree removed under it); the retry runs straight through.
      const command = `if [ ! -e "$MARK/started" ]; then ${WAIT_FOR_GO}; else test -f one.txt; fi`;
      await service.publishTestRunJob(
        service.testRunJob(fx, runId, [{ number: 1 }], commandRunner(command, [], { MARK: mark })),
      );
      await eventually(() => expect(existsSync(join(mark, "started"))).to.equal(true), 30_000);
      const worktrees = join(service.runners[0]!.workDir, "worktrees");
      const running = await readdir(worktrees);
      expect(running).to.have.length(1);
      await rm(join(worktrees, running[0]!), { recursive: true, force: true });
      await writeFile(join(mark, "go"), "");

      const result = await service.testRunResults.first(runId);
      expect(result.outcome, result.message).to.equal(TestRunOutcome.PASSED);
      expect(service.testRunResults.all(runId)).to.have.length(1);
    });
  });
});
