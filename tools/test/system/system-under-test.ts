import path from "node:path";
import { startSystem, waitForHttp, SERVICES, type RunningSystem } from "../../src/dev/system.js";
import type { NatsClusterProcess } from "../../src/dev/nats-cluster-process.js";
import { freePortBlock } from "@mainline/testing";
import { bucketName } from "@mainline/kit/store/index";

/** The cluster: three nats-servers as one JetStream cluster, two processes of every service. */
const NATS_NODES = 3;
const REPLICAS = 2;

/**
 * The system test's handle on `make dev`'s supervisor in cluster mode (DEV_NATS_CLUSTER=3 DEV_REPLICAS=2): the
 * gateways, and the processes a fault hits. Kept apart from the test so the test reads as the issue's list of
 * faults and checks.
 */
export class SystemUnderTest {
  private constructor(
    readonly system: RunningSystem,
    private readonly cluster: NatsClusterProcess,
    readonly grpcBasePort: number,
  ) {}

  static async start(root: string, dataDir: string): Promise<SystemUnderTest> {
    // Gateways on base..base+1; the nodes' client, route and monitoring ports on base+5..base+13; gRPC above.
    const base = await freePortBlock(40);
    const grpcBasePort = base + 20;
    const system = await startSystem({
      root,
      dataDir,
      batchRunnerWorkDir: path.join(dataDir, "batch-runner"),
      gatewayPort: base,
      natsPort: base + 5,
      grpcBasePort,
      natsCluster: NATS_NODES,
      replicas: REPLICAS,
      env: {
        LOG_LEVEL: "warn",
        WEBHOOKS_ALLOW_LOOPBACK: "true",
        // A delivery or an event held by a killed replica is handed out again after 5 s, not 30 s.
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
    const ready = await Promise.all(system.apiUrls.map((url) => waitForHttp(`${url}/readyz`, 240_000)));
    if (!ready.every(Boolean) || !system.natsCluster) {
      await system.stop();
      throw new Error("the cluster was not ready within 240 s");
    }
    return new SystemUnderTest(system, system.natsCluster, grpcBasePort);
  }

  get apiUrls(): readonly string[] {
    return this.system.apiUrls;
  }

  get apiToken(): string {
    return this.system.apiToken;
  }

  /** SIGKILLs node i; the supervisor leaves it down until restartNatsNode(i). */
  killNatsNode(index: number): Promise<void> {
    return this.cluster.down(index);
  }

  restartNatsNode(index: number): Promise<void> {
    return this.cluster.up(index);
  }

  pauseNatsNode(index: number): void {
    this.cluster.pause(index);
  }

  resumeNatsNode(index: number): void {
    this.cluster.resume(index);
  }

  /** Resolves once every node reports its JetStream current (the restarted one caught up) and a meta leader. */
  natsCaughtUp(timeoutMs: number): Promise<void> {
    return this.cluster.waitReady(timeoutMs);
  }

  /**
   * Whether node i leads the stream of the queue-coordinator's queue bucket (what every queue write waits for):
   * a fault on that node costs an election (4-9 s in nats-server 2.10) before any queue write can land.
   */
  async leadsQueueBucket(index: number): Promise<boolean> {
    const node = this.cluster.cluster.nodes[index]!;
    const response = await fetch(`http://127.0.0.1:${node.httpPort}/jsz?accounts=true&streams=true`, {
      signal: AbortSignal.timeout(2_000),
    });
    const jsz = (await response.json()) as {
      account_details?: { stream_detail?: { name: string; cluster?: { leader?: string } }[] }[];
    };
    const streams = (jsz.account_details ?? []).flatMap((a) => a.stream_detail ?? []);
    const queues = streams.find((s) => s.name === `KV_${bucketName("mainline-queue-coordinator", "queues")}`);
    return queues?.cluster?.leader === node.name;
  }

  /** SIGKILLs the first process of every service (the supervisor starts it again); returns the pids killed. */
  killOneReplicaOfEach(): Record<string, number> {
    const killed: Record<string, number> = {};
    for (const service of [...SERVICES.map((s) => s.name), "gateway"]) {
      const pid = this.system.processes.get(service)?.pid;
      if (pid === undefined) continue;
      process.kill(pid, "SIGKILL");
      killed[service] = pid;
    }
    return killed;
  }

  /** Each metrics process's gRPC address (replica r listens on grpcBasePort + 5 r + the service's offset). */
  get metricsAddresses(): string[] {
    const metrics = SERVICES.find((s) => s.name === "metrics")!;
    return Array.from(
      { length: REPLICAS },
      (_, r) => `127.0.0.1:${this.grpcBasePort + 5 * r + metrics.portOffset}`,
    );
  }

  async stop(): Promise<void> {
    await this.system.stop();
  }
}
