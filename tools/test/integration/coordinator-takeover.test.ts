import { expect } from "chai";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { connect, type NatsConnection } from "nats";
import { branchMoves, eventually, freePort, NatsServer, git, nodeEntryArgs } from "@mainline/testing";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { startBatchRunner, type BatchRunner } from "@mainline/batch-runner";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const COORDINATOR_MAIN = path.join(ROOT, "services/queue-coordinator/src/main.ts");
const LEASE_ACQUIRED = "timekeeper lease acquired";

/** A queue-coordinator replica as its own OS process, so that "dies" can mean SIGKILL. */
class CoordinatorReplica {
  readonly log: string[] = [];
  private constructor(
    readonly name: string,
    readonly address: string,
    readonly child: ChildProcess,
  ) {}

  static async start(name: string, nats: NatsServer): Promise<CoordinatorReplica> {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...nats.serviceEnv(),
      GRPC_PORT: String(port),
      LOG_LEVEL: "info",
      COORDINATOR_LEASE_TTL_MS: "1500",
      COORDINATOR_SWEEP_INTERVAL_MS: "200",
    };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.MONGODB_URI;
    const child = spawn(process.execPath, nodeEntryArgs(COORDINATOR_MAIN), {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const replica = new CoordinatorReplica(name, `127.0.0.1:${port}`, child);
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on("line", (line) => replica.log.push(line));
    await eventually(async () => {
      expect(child.exitCode, `${name} exited:\n${replica.log.join("\n")}`).to.equal(null);
      expect(await checkGrpcHealth(replica.address), `${name} is not serving yet`).to.equal(true);
    }, 60_000);
    return replica;
  }

  get keepsTime(): boolean {
    return this.log.some((line) => line.includes(LEASE_ACQUIRED));
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGKILL");
    await exited;
  }
}

const repo = { host: "git.example.com", owner: "acme", name: "app" };
const queue = { repo, targetBranch: "main" };
const PRS = [1, 2, 3, 4];

/**
 * Issue 3: with several replicas, the one that planned a batch dies (SIGKILL) while the batch is testing; the
 * survivor takes over from the stored state, merges every PR exactly once and does not re-run the tests.
 */
describe("queue-coordinator replicas: the owner dies mid-batch", function () {
  this.timeout(180_000);
  let dir: string;
  let remote: string;
  let baseSha: string;
  let nats: NatsServer;
  let first: CoordinatorReplica;
  let second: CoordinatorReplica;
  let runnerNats: NatsConnection;
  let runner: BatchRunner;
  let gatewayToFirst: GatewayHarness;
  let gatewayToSecond: GatewayHarness;
  let tokenFirst: string;
  let tokenSecond: string;
  let gate: string;
  let runsLog: string;

  const call = async (gw: GatewayHarness, token: string, route: string, body: unknown) => {
    const response = await gw.post(route, body, token);
    const text = await response.text();
    expect(response.status, `${route}: ${text}`).to.equal(200);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const viaFirst = (route: string, body: unknown) => call(gatewayToFirst, tokenFirst, route, body);
  const viaSecond = (route: string, body: unknown) => call(gatewayToSecond, tokenSecond, route, body);
  const testRunsStarted = async () =>
    (await readFile(runsLog, "utf8").catch(() => "")).split("\n").filter(Boolean).length;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "mainline-takeover-"));
    remote = path.join(dir, "remote.git");
    gate = path.join(dir, "gate");
    runsLog = path.join(dir, "runs.log");
    const work = path.join(dir, "work");
    git(dir, "init", "--bare", "--initial-branch=main", remote);
    git(remote, "config", "core.logAllRefUpdates", "always");
    git(dir, "clone", "-q", remote, work);
    git(work, "checkout", "-q", "-b", "main");
    // Every run is counted, then holds until the test opens the gate: the batch is mid-test while a replica dies.
    await writeFile(
      path.join(work, "test.sh"),
      `echo started >> '${runsLog}'\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\necho ok\n`,
    );
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "initial");
    git(work, "push", "-q", "origin", "main");
    baseSha = git(work, "rev-parse", "HEAD");
    for (const n of PRS) {
      git(work, "checkout", "-q", "-b", `feature-${n}`, baseSha);
      await writeFile(path.join(work, `pr-${n}.txt`), `change ${n}\n`);
      git(work, "add", ".");
      git(work, "commit", "-q", "-m", `Change ${n}`);
      git(work, "push", "-q", "origin", `HEAD:refs/heads/feature-${n}`, `HEAD:refs/pull/${n}/head`);
    }

    nats = await NatsServer.start();
    first = await CoordinatorReplica.start("first", nats);
    await eventually(() => expect(first.keepsTime, "the first replica keeps time").to.equal(true), 20_000);
    second = await CoordinatorReplica.start("second", nats);
    runnerNats = await connect(nats.connectOptions());
    runner = await startBatchRunner({
      nats: runnerNats,
      logger: createLogger("batch-runner-test", process.env.TEST_LOG_LEVEL ?? "silent"),
      settings: {
        workDir: path.join(dir, "runner"),
        gitIdentity: { name: "Mainline", email: "mainline@localhost" },
        jobConcurrency: 2,
        maxRunSeconds: 120,
      },
    });
    gatewayToFirst = await GatewayHarness.start({ queue: first.address });
    gatewayToSecond = await GatewayHarness.start({ queue: second.address });
    tokenFirst = await gatewayToFirst.organization("acme");
    tokenSecond = await gatewayToSecond.organization("acme");
  });

  after(async () => {
    await writeFile(gate, "").catch(() => undefined);
    await gatewayToFirst?.stop();
    await gatewayToSecond?.stop();
    await runner?.stop();
    await runnerNats?.close();
    await first?.kill();
    await second?.kill();
    await nats?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("lets the surviving replica finish the batch: every PR merged once, the tests run once", async () => {
    await viaFirst("/createQueue", {
      ...queue,
      batch: true,
      batchingMinSize: 4,
      batchingMaxWaitTimeMinutes: 1,
    });
    await viaFirst("/repositories/connection", {
      repo,
      remoteUrl: remote,
      runner: { kind: "COMMAND", command: "sh test.sh" },
    });
    for (const n of PRS) {
      await viaFirst("/code-host/pull-request-events", {
        action: "opened",
        number: n,
        pull_request: {
          title: `Change ${n}`,
          state: "open",
          user: { login: "dev" },
          head: { ref: `feature-${n}`, sha: git(remote, "rev-parse", `refs/pull/${n}/head`) },
          base: { ref: "main" },
        },
        repository: {
          name: repo.name,
          owner: { login: repo.owner },
          html_url: `https://${repo.host}/acme/app`,
        },
      });
    }
    // Both replicas take commands for the same queue; the store's compare-and-set keeps them consistent.
    await viaFirst("/submitPullRequest", { ...queue, pr: { number: 1 } });
    await viaSecond("/submitPullRequest", { ...queue, pr: { number: 2 } });
    await viaFirst("/submitPullRequest", { ...queue, pr: { number: 3 } });
    await viaSecond("/submitPullRequest", { ...queue, pr: { number: 4 } });

    // The batch of four is under test, and the second replica sees it so.
    await eventually(async () => expect(await testRunsStarted()).to.equal(1), 60_000);
    await eventually(async () => {
      const q = await viaSecond("/getQueue", queue);
      const states = (q.enqueuedPullRequests as { prNumber: number; state: string }[]).map((e) => e.state);
      expect(states).to.deep.equal(["TESTING", "TESTING", "TESTING", "TESTING"]);
    });

    await first.kill();
    await writeFile(gate, "");

    for (const n of PRS) {
      await eventually(async () => {
        const pr = await viaSecond("/getSubmittedPullRequest", { ...queue, pr: { number: n } });
        expect(pr.state, `PR ${n}`).to.equal("MERGED");
      }, 60_000);
    }
    // The survivor also took over the time-driven work once the dead replica's lease ran out.
    await eventually(() => expect(second.keepsTime, "the second replica keeps time").to.equal(true), 20_000);

    expect(await testRunsStarted(), "the batch was tested once, not again after the takeover").to.equal(1);
    const merged = git(remote, "log", "--format=%s", `${baseSha}..main`).split("\n").reverse();
    expect(merged).to.deep.equal(PRS.map((n) => `Change ${n} (#${n})`));
    expect(branchMoves(remote, "refs/heads/main")).to.deep.equal({ moves: 1, forced: [] });
  });
});
