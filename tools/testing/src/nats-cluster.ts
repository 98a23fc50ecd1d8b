import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { connect } from "nats";
import { freePortBlock } from "./free-port.js";
import { NatsServer, type NatsCredentials, type NatsServerOptions, type NatsUser } from "./nats-server.js";

export interface NatsClusterOptions {
  /** Number of nodes; 3 by default (the smallest cluster that keeps an R3 stream writable after a loss). */
  size?: number;
  /**
   * Node i listens for clients on basePort + i, for routes on basePort + size + i and for monitoring on
   * basePort + 2 * size + i. A block of free ports when omitted.
   */
  basePort?: number;
  /** Holds node-<i>/ (each node's JetStream store); a fresh temporary one when omitted. */
  dataDir?: string;
  /** Keep dataDir when the cluster stops (dev mode keeps its data). */
  keepStore?: boolean;
  /** Where node-<i>.log go; the nodes are silent when omitted. */
  logDir?: string;
  /** The same users (and permissions) on every node; one user with a random password when omitted. */
  users?: readonly NatsUser[];
  name?: string;
}

/** How long the meta leader may leave a running node out of its peers before waitReady restarts it. */
const LEFT_OUT_RESTART_MS = 15_000;

/** One node of a NatsCluster: its ports and, while it runs, its process. */
export interface NatsClusterNode {
  readonly index: number;
  readonly name: string;
  readonly url: string;
  readonly port: number;
  readonly routePort: number;
  readonly httpPort: number;
  readonly storeDir: string;
  /** The running server, or undefined while the node is down. */
  readonly server: NatsServer | undefined;
}

/**
 * A real JetStream cluster of nats-servers on loopback, owned by the caller: every node with its own store,
 * the same users, routes between them. A test (or `make dev`'s supervisor) kills, freezes and restarts nodes
 * on the same ports and store, as an operator's machine would crash, hang and come back.
 */
export class NatsCluster {
  private readonly servers: (NatsServer | undefined)[];

  private constructor(
    private readonly nodeOptions: readonly NatsServerOptions[],
    servers: NatsServer[],
    private readonly dataDir: string,
    private readonly removeDataDir: boolean,
    readonly credentials: NatsCredentials,
  ) {
    this.servers = servers;
  }

  static async start(options: NatsClusterOptions = {}): Promise<NatsCluster> {
    NatsServer.requireInstalled();
    const size = options.size ?? 3;
    if (!Number.isInteger(size) || size < 1)
      throw new Error(`NatsCluster.start: size must be >= 1 (got ${size})`);
    const basePort = options.basePort ?? (await freePortBlock(3 * size));
    const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), "mainline-nats-cluster-")));
    const users = options.users ?? [{ user: "mainline", password: randomBytes(18).toString("base64url") }];
    const first = users[0];
    if (first === undefined) throw new Error("NatsCluster.start: users must name at least one user");
    const name = options.name ?? "mainline";
    const route = { user: "route", password: randomBytes(18).toString("base64url") };
    const routes = Array.from(
      { length: size },
      (_, i) => `nats-route://${route.user}:${route.password}@127.0.0.1:${basePort + size + i}`,
    );
    const nodeOptions: NatsServerOptions[] = [];
    for (let i = 0; i < size; i += 1) {
      const storeDir = path.join(dataDir, `node-${i}`);
      await mkdir(storeDir, { recursive: true });
      nodeOptions.push({
        port: basePort + i,
        storeDir,
        keepStore: true,
        users,
        serverName: `${name}-${i}`,
        httpPort: basePort + 2 * size + i,
        cluster: { name, port: basePort + size + i, routes, ...route },
        ...(options.logDir ? { logFile: path.join(options.logDir, `node-${i}.log`) } : {}),
      });
    }
    const servers = await Promise.all(nodeOptions.map((o) => NatsServer.start(o)));
    return new NatsCluster(nodeOptions, servers, dataDir, !options.keepStore && !options.dataDir, {
      user: first.user,
      pass: first.password,
    });
  }

  get size(): number {
    return this.nodeOptions.length;
  }

  get nodes(): NatsClusterNode[] {
    return this.nodeOptions.map((o, index) => ({
      index,
      name: o.serverName!,
      url: `nats://127.0.0.1:${o.port}`,
      port: o.port!,
      routePort: o.cluster!.port,
      httpPort: o.httpPort!,
      storeDir: o.storeDir!,
      server: this.servers[index],
    }));
  }

  /** Every node's client URL. */
  get urls(): string[] {
    return this.nodeOptions.map((o) => `nats://127.0.0.1:${o.port}`);
  }

  /** The comma-separated list a service reads in NATS_URL. */
  get url(): string {
    return this.urls.join(",");
  }

  connectOptions(): { servers: string[]; user: string; pass: string } {
    return { servers: this.urls, ...this.credentials };
  }

  serviceEnv(): { NATS_URL: string; NATS_USER: string; NATS_PASSWORD: string } {
    return { NATS_URL: this.url, NATS_USER: this.credentials.user, NATS_PASSWORD: this.credentials.pass };
  }

  /** The pid of node i, while it runs. */
  pid(index: number): number | undefined {
    return this.servers[this.at(index)]?.pid;
  }

  /** Resolves when node i's process ends (a supervisor restarts it); at once when it is down. */
  exited(index: number): Promise<void> {
    return this.servers[this.at(index)]?.exited() ?? Promise.resolve();
  }

  /** SIGKILLs node i (a crash) and waits for it to be gone; it stays down until restart(i). */
  async kill(index: number): Promise<void> {
    const server = this.servers[this.at(index)];
    this.servers[index] = undefined;
    await server?.stop("SIGKILL");
  }

  /** Freezes node i (SIGSTOP): its sockets stay open and it answers nothing, as a hung machine. */
  pause(index: number): void {
    this.servers[this.at(index)]?.signal("SIGSTOP");
  }

  /** Thaws node i (SIGCONT). */
  resume(index: number): void {
    this.servers[this.at(index)]?.signal("SIGCONT");
  }

  /** Starts node i again on its ports and store (after kill, or after it died); it catches up from its peers. */
  async restart(index: number): Promise<void> {
    const at = this.at(index);
    const old = this.servers[at];
    this.servers[at] = undefined;
    // A dead server's config (it holds the passwords) goes; the store is the cluster's and stays.
    await old?.stop("SIGKILL");
    this.servers[at] = await NatsServer.start(this.nodeOptions[at]);
  }

  /** Whether node i's monitoring endpoint says its JetStream is current (meta leader known, streams caught up). */
  async nodeHealthy(index: number): Promise<boolean> {
    const port = this.nodeOptions[this.at(index)]!.httpPort;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      return response.ok;
    } catch {
      return false;
    }
  }

  /**
   * Resolves once the cluster has a JetStream meta leader (the account's JetStream info answers) and every
   * running node reports itself healthy; throws after timeoutMs with what was last seen.
   */
  async waitReady(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const leftOutSince = new Map<number, number>();
    const restarted = new Set<number>();
    let last: string;
    for (;;) {
      const running = this.servers.flatMap((s, i) => (s ? [i] : []));
      const healthy = await Promise.all(running.map((i) => this.nodeHealthy(i)));
      if (healthy.every(Boolean)) {
        try {
          const nc = await connect({ ...this.connectOptions(), reconnect: false, timeout: 2000 });
          try {
            const jsm = await nc.jetstreamManager({ timeout: 2000 });
            await jsm.getAccountInfo();
            const view = await this.metaView(running);
            if (view.missing.length === 0) return;
            last = `the meta leader does not see ${view.missing.join(", ")} as current (${view.seen})`;
            await this.restartLeftOut(view.leftOut, leftOutSince, restarted);
          } finally {
            await nc.close();
          }
        } catch (error) {
          last = `JetStream did not answer: ${String(error)}`;
        }
      } else {
        last = `unhealthy nodes: ${running.filter((_, k) => !healthy[k]).join(", ")}`;
      }
      if (restarted.size > 0)
        last += `; restarted ${[...restarted].map((i) => this.nodes[i]!.name).join(", ")}`;
      if (Date.now() > deadline)
        throw new Error(`the NATS cluster was not ready within ${timeoutMs} ms (${last})`);
      await sleep(200);
    }
  }

  /**
   * A node the meta leader leaves out of its peers altogether for LEFT_OUT_RESTART_MS is restarted once, on its
   * store. Seen under a loaded `make test` on nats-server 2.10: a node healthy on its own, missing from the
   * leader's peer list for a whole minute (the leader adds a peer when that peer's statistics reach it); a
   * restart sends them again on fresh routes.
   */
  private async restartLeftOut(
    leftOut: readonly number[],
    since: Map<number, number>,
    restarted: Set<number>,
  ): Promise<void> {
    const now = Date.now();
    for (const i of [...since.keys()]) if (!leftOut.includes(i)) since.delete(i);
    for (const i of leftOut) {
      const from = since.get(i) ?? now;
      since.set(i, from);
      if (now - from < LEFT_OUT_RESTART_MS || restarted.has(i)) continue;
      restarted.add(i);
      since.delete(i);
      await this.restart(i);
    }
  }

  /**
   * The JetStream meta leader's view of the running nodes: which it does not count as current peers (all of them,
   * "none", while it has no leader), which of those it does not list at all, and what it lists. Until every node is
   * current an R3 asset cannot be placed on each.
   */
  private async metaView(
    running: readonly number[],
  ): Promise<{ missing: string[]; leftOut: number[]; seen: string }> {
    type Jsz = {
      meta_cluster?: { leader?: string; replicas?: { name: string; current?: boolean; offline?: boolean }[] };
    };
    for (const i of running) {
      const port = this.nodeOptions[i]!.httpPort;
      let jsz: Jsz;
      try {
        const response = await fetch(`http://127.0.0.1:${port}/jsz`, { signal: AbortSignal.timeout(2000) });
        jsz = (await response.json()) as Jsz;
      } catch {
        continue;
      }
      const meta = jsz.meta_cluster;
      if (meta?.leader === undefined || meta.leader === "")
        return { missing: ["none"], leftOut: [], seen: "no meta leader" };
      if (meta.leader !== this.nodes[i]!.name) continue;
      const replicas = meta.replicas ?? [];
      const current = new Set([
        meta.leader,
        ...replicas.filter((r) => r.current === true && r.offline !== true).map((r) => r.name),
      ]);
      const listed = new Set([meta.leader, ...replicas.map((r) => r.name)]);
      const missing = running.filter((k) => !current.has(this.nodes[k]!.name));
      // A peer listed by id only ("Server name unknown at this time") could be any node: none counts as left out.
      const anonymous = replicas.some((r) => !this.nodes.some((n) => n.name === r.name));
      return {
        missing: missing.map((k) => this.nodes[k]!.name),
        leftOut: anonymous ? [] : missing.filter((k) => !listed.has(this.nodes[k]!.name)),
        seen: `leader ${meta.leader} sees: ${replicas.map((r) => `${r.name} current=${r.current} offline=${r.offline}`).join("; ") || "no other peer"}`,
      };
    }
    return { missing: ["none"], leftOut: [], seen: "no node answered as the meta leader" };
  }

  /** Stops every node (SIGTERM by default) and removes the data unless it was given or kept. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const servers = this.servers.splice(0, this.servers.length, ...this.servers.map(() => undefined));
    await Promise.all(servers.map(async (s) => s?.stop(signal)));
    if (this.removeDataDir) await rm(this.dataDir, { recursive: true, force: true });
  }

  private at(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.nodeOptions.length)
      throw new Error(`no node ${index} in a cluster of ${this.nodeOptions.length}`);
    return index;
  }
}
