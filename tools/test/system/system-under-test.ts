import path from "node:path";
import { startSystem, waitForHttp, SERVICES, type RunningSystem } from "../../src/dev/system.js";
import { freePortBlock } from "@mainline/testing";

/**
 * The system test's handle on `make dev`'s supervisor: the API, and the processes a fault hits. Kept apart from
 * the test so the test reads as the issue's list of faults and checks.
 */
export class SystemUnderTest {
  private constructor(
    readonly system: RunningSystem,
    readonly grpcBasePort: number,
  ) {}

  static async start(root: string, dataDir: string): Promise<SystemUnderTest> {
    const base = await freePortBlock(16);
    const system = await startSystem({
      root,
      dataDir,
      batchRunnerWorkDir: path.join(dataDir, "batch-runner"),
      gatewayPort: base,
      natsPort: base + 1,
      grpcBasePort: base + 1,
      env: {
        LOG_LEVEL: "warn",
        WEBHOOKS_ALLOW_LOOPBACK: "true",
        // A delivery held by a killed replica is handed out again after this, not after 30 s.
        WEBHOOKS_ACK_WAIT_MS: "5000",
        WEBHOOKS_RETRY_SCHEDULE_MS: "1000,2000,5000,10000,20000",
        WEBHOOKS_RETRY_JITTER: "0",
        METRICS_ACK_WAIT_MS: "5000",
      },
      output: (line) => {
        if (process.env.SYSTEM_TEST_LOG) process.stderr.write(`${line}\n`);
      },
      log: (line) => {
        if (process.env.SYSTEM_TEST_LOG) process.stderr.write(`[dev] ${line}\n`);
      },
    });
    if (!(await waitForHttp(`${system.apiUrl}/readyz`, 150_000))) {
      await system.stop();
      throw new Error("the system was not ready within 150 s");
    }
    return new SystemUnderTest(system, base + 1);
  }

  get apiUrls(): string[] {
    return [this.system.apiUrl];
  }

  get apiToken(): string {
    return this.system.apiToken;
  }

  get natsNodes(): number {
    return 1;
  }

  killNatsNode(_index: number): Promise<void> {
    const pid = this.system.nats.pid;
    if (pid) process.kill(pid, "SIGKILL");
    return Promise.resolve();
  }

  async restartNatsNode(_index: number): Promise<void> {
    // the single-node supervisor restarts it by itself
  }

  pauseNatsNode(_index: number): void {}

  resumeNatsNode(_index: number): void {}

  /** Resolves once every node is back and its JetStream is current. */
  async natsCaughtUp(_timeoutMs: number): Promise<void> {}

  /** SIGKILLs one process of every service; returns the pids killed. */
  killOneReplicaOfEach(): Record<string, number> {
    const killed: Record<string, number> = {};
    for (const [name, proc] of this.system.processes) {
      const pid = proc.pid;
      if (pid === undefined) continue;
      process.kill(pid, "SIGKILL");
      killed[name] = pid;
    }
    return killed;
  }

  /** Each metrics process's gRPC address. */
  get metricsAddresses(): string[] {
    const metrics = SERVICES.find((s) => s.name === "metrics")!;
    return [`127.0.0.1:${this.grpcBasePort + metrics.portOffset}`];
  }

  async stop(): Promise<void> {
    await this.system.stop();
  }
}
