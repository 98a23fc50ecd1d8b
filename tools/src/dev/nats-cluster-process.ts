import { NatsCluster, type NatsClusterOptions } from "@mainline/testing";

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
const STABLE_AFTER_MS = 30_000;

/**
 * `make dev`'s JetStream cluster (DEV_NATS_CLUSTER=3) under supervision: a node that dies is restarted on its
 * ports and store, as the single dev nats-server is (nats-process.ts). A test takes a node down on purpose with
 * `down` (it stays down until `up`), or freezes it with `pause` / `resume`; a SIGKILL from outside is a crash,
 * followed by a restart.
 */
export class NatsClusterProcess {
  private stopping = false;
  private readonly held = new Set<number>();
  private readonly backoffMs: number[];
  private readonly timers: (NodeJS.Timeout | undefined)[];
  /** Restarts after a crash, per node. */
  readonly restarts: number[];

  private constructor(
    readonly cluster: NatsCluster,
    private readonly log: (message: string) => void,
  ) {
    this.backoffMs = cluster.nodes.map(() => MIN_BACKOFF_MS);
    this.timers = cluster.nodes.map(() => undefined);
    this.restarts = cluster.nodes.map(() => 0);
  }

  static async start(
    options: NatsClusterOptions,
    log: (message: string) => void,
  ): Promise<NatsClusterProcess> {
    const cluster = await NatsCluster.start(options);
    const supervised = new NatsClusterProcess(cluster, log);
    for (const node of cluster.nodes) supervised.watch(node.index, Date.now());
    return supervised;
  }

  /** Every node's URL, comma-separated: what the services get in NATS_URL. */
  get url(): string {
    return this.cluster.url;
  }

  get size(): number {
    return this.cluster.size;
  }

  pid(index: number): number | undefined {
    return this.cluster.pid(index);
  }

  /** SIGKILLs node i and keeps it down (no restart) until `up(i)`. */
  async down(index: number): Promise<void> {
    this.held.add(index);
    clearTimeout(this.timers[index]);
    await this.cluster.kill(index);
  }

  /** Starts node i again after `down(i)`, on its ports and store; it catches up from the others. */
  async up(index: number): Promise<void> {
    this.held.delete(index);
    await this.cluster.restart(index);
    this.watch(index, Date.now());
  }

  /** SIGSTOP: node i hangs with its sockets open. */
  pause(index: number): void {
    this.cluster.pause(index);
  }

  /** SIGCONT after `pause(i)`. */
  resume(index: number): void {
    this.cluster.resume(index);
  }

  /** Resolves once there is a meta leader and every running node is current. */
  waitReady(timeoutMs?: number): Promise<void> {
    return this.cluster.waitReady(timeoutMs);
  }

  private watch(index: number, startedAt: number): void {
    const server = this.cluster.nodes[index]?.server;
    if (!server) return;
    void server.exited().then(() => {
      // Taken down on purpose (down), replaced by a restart already, or the whole system stops.
      if (this.stopping || this.held.has(index) || this.cluster.nodes[index]?.server !== server) return;
      if (Date.now() - startedAt > STABLE_AFTER_MS) this.backoffMs[index] = MIN_BACKOFF_MS;
      this.scheduleRestart(index, "exited");
    });
  }

  private scheduleRestart(index: number, why: string): void {
    const delay = this.backoffMs[index]!;
    this.backoffMs[index] = Math.min(delay * 2, MAX_BACKOFF_MS);
    this.restarts[index]! += 1;
    this.log(
      `nats-server node ${index} ${why}; restarting in ${delay} ms (restart #${this.restarts[index]})`,
    );
    this.timers[index] = setTimeout(() => void this.restart(index), delay);
  }

  private async restart(index: number): Promise<void> {
    if (this.stopping || this.held.has(index)) return;
    try {
      await this.cluster.restart(index);
      this.watch(index, Date.now());
    } catch (error) {
      // e.g. the port is still held by the dying process: try again later.
      this.scheduleRestart(index, `did not start (${String(error)})`);
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    await this.cluster.stop();
  }
}
