import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eventually } from "@mainline/testing";
import { TestRunOutcome } from "@mainline/proto/queue";
import { RemoteFixture } from "../git/remote-fixture.js";
import { BatchRunnerFixture, commandRunner, newRunId } from "./batch-runner-fixture.js";
import { RunnerProcess } from "./runner-process.js";

/** The process group leader of each start of the command, and the worktree it ran in, in start order. */
async function startsOf(mark: string): Promise<Array<{ pid: number; cwd: string }>> {
  const text = await readFile(join(mark, "starts"), "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [pid, ...cwd] = line.split(" ");
      return { pid: Number(pid), cwd: cwd.join(" ") };
    });
}

/** Running, not only not reaped: a container's init may leave a killed orphan a zombie. */
function running(pid: number): boolean {
  const state = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

/**
 * Two batch-runner processes share the durable job consumers (DESIGN rule 5). The one running a COMMAND test run
 * is SIGKILLed mid-run: its command dies with it, and after the ack wait the run starts again on the other
 * replica and its result reaches the coordinator.
 */
describe("batch-runner: a replica dies mid-run", function () {
  this.timeout(180_000);
  let service: BatchRunnerFixture;
  let fx: RemoteFixture;
  let mark: string;
  const replicas: RunnerProcess[] = [];

  before(async () => {
    service = await BatchRunnerFixture.withoutRunners();
    fx = await RemoteFixture.create();
    await fx.openPullRequest(1, [{ files: { "one.txt": "1\n" }, message: "One" }]);
    mark = await mkdtemp(join(tmpdir(), "mainline-failover-mark-"));
    // Short, so the dead replica's job comes back soon, but not so short that a live replica loses it: the runner
    // renews its job every half ack wait, and at 2 s a loaded 2-core machine once stalled a runner past the
    // renewal. The job went to both replicas at once, the second start won the marker and slept, and the run
    // ended TIMED_OUT (`make test` on a slow machine, session 14).
    const env = { BATCH_RUNNER_JOB_ACK_WAIT_MS: "6000" };
    replicas.push(await RunnerProcess.start("a", service.server, env));
    replicas.push(await RunnerProcess.start("b", service.server, env));
  });
  after(async () => {
    // Whatever the outcome, no test command outlives the test.
    for (const { pid } of await startsOf(mark)) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    for (const replica of replicas) await replica.stop();
    await rm(mark, { recursive: true, force: true });
    await fx?.dispose();
    await service?.stop();
  });

  it("restarts the COMMAND run on the other replica, the first attempt's command killed with its replica", async () => {
    const runId = newRunId("failover");
    // The first start hangs; a later one checks the first is gone, then passes.
    const command = [
      'printf "%s %s\\n" "$$" "$PWD" >> "$MARK/starts"',
      'if [ ! -e "$MARK/first" ]; then touch "$MARK/first"; exec sleep 300; fi',
      'first=$(head -n 1 "$MARK/starts" | cut -d " " -f 1)',
      'case "$(ps -o stat= -p "$first")" in ""|Z*) ;; *) ps -o pid,stat,args -p "$first" > "$MARK/overlap" ;; esac',
      "test -f one.txt",
    ].join("\n");
    await service.publishTestRunJob(
      service.testRunJob(fx, runId, [{ number: 1 }], commandRunner(command, [], { MARK: mark })),
    );

    const [first] = await eventually(async () => {
      const starts = await startsOf(mark);
      if (starts.length === 0) throw new Error("the command has not started yet");
      return starts;
    }, 60_000);
    const holder = replicas.find((r) => first!.cwd.startsWith(r.workDir));
    const other = replicas.find((r) => r !== holder);
    if (!holder || !other) throw new Error(`no replica runs in ${first!.cwd}`);
    await holder.kill();

    // The dead replica's command does not run on as an orphan beside the restarted run.
    await eventually(() => {
      if (running(first!.pid)) throw new Error("the killed replica's command still runs");
    }, 10_000);
    const result = await service.testRunResults.first(runId);
    expect(result.outcome).to.equal(TestRunOutcome.PASSED, result.message);
    const starts = await startsOf(mark);
    expect(starts).to.have.length(2);
    expect(starts[1]!.cwd.startsWith(other.workDir), starts[1]!.cwd).to.equal(true);
    const overlap = await readFile(join(mark, "overlap"), "utf8").catch(() => null);
    expect(overlap, `${overlap} ${JSON.stringify(starts)}`).to.equal(null);
    expect(other.running).to.equal(true);
  });
});
