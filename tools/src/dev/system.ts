import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { NatsUser } from "@mainline/testing";
import { prepareBatchRunnerWorkDir } from "./batch-runner-work-dir.js";
import { NatsClusterProcess } from "./nats-cluster-process.js";
import { NatsProcess } from "./nats-process.js";
import { serviceNatsUsers } from "./nats-users.js";
import { ServiceProcess } from "./service-process.js";

/** The services of Mainline, in start order: the gateway last, once what it calls is there. */
export const SERVICES = [
  { name: "queue-coordinator", portOffset: 1, addrVar: "QUEUE_COORDINATOR_ADDR" },
  { name: "batch-runner", portOffset: 2, addrVar: "BATCH_RUNNER_ADDR" },
  { name: "flaky-analytics", portOffset: 3, addrVar: "FLAKY_ANALYTICS_ADDR" },
  { name: "metrics", portOffset: 4, addrVar: "METRICS_ADDR" },
  { name: "webhooks", portOffset: 5, addrVar: "WEBHOOKS_ADDR" },
] as const;

export interface SystemOptions {
  /** Repository root (services/ lives under it). */
  root: string;
  /** Holds nats/ (JetStream data) and the dev token; data survives restarts of the system. */
  dataDir: string;
  /** The first gateway's port; replica r (from 0) listens on gatewayPort + r. */
  gatewayPort: number;
  /** The nats-server's client port; in cluster mode the first of the 3 * size ports of its nodes (nats-cluster.ts). */
  natsPort?: number;
  /** gRPC ports of replica r (from 0) are grpcBasePort + 5 * r + 1..5. */
  grpcBasePort: number;
  /**
   * DEV_NATS_CLUSTER: that many nats-servers as one JetStream cluster (every service gets every node's URL and
   * NATS_REPLICAS of the cluster's size) instead of one nats-server. Unset or 1: one nats-server, as before.
   */
  natsCluster?: number;
  /** DEV_REPLICAS: processes of every service (gateway included); 1 when unset. */
  replicas?: number;
  apiToken?: string;
  /**
   * The batch-runner's mirrors and test worktrees. By default a folder of this instance's own, outside any
   * checkout and never another instance's (see batch-runner-work-dir.ts).
   */
  batchRunnerWorkDir?: string;
  env?: NodeJS.ProcessEnv;
  output: (line: string) => void;
  log: (message: string) => void;
}

export interface RunningSystem {
  readonly apiUrl: string;
  readonly apiToken: string;
  /** Every gateway replica's API, the first one first (apiUrl). */
  readonly apiUrls: readonly string[];
  /** The NATS URL the services get: one, or every node's, comma-separated. */
  readonly natsUrl: string;
  /** The nats-server, unless the system runs on a cluster. */
  readonly nats?: NatsProcess;
  /** The JetStream cluster, when natsCluster was given. */
  readonly natsCluster?: NatsClusterProcess;
  /**
   * Every service process by name: the first replica under the service's name, the others as `<name>-2`,
   * `<name>-3`... (their log lines carry that name too).
   */
  readonly processes: ReadonlyMap<string, ServiceProcess>;
  stop(): Promise<void>;
}

/** The dev token: the given one, else the one generated on a previous run, else a new one (kept in dataDir). */
async function devToken(dataDir: string, given: string | undefined): Promise<string> {
  if (given) return given;
  const file = path.join(dataDir, "dev-api-token");
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const token = `mlt_${randomBytes(24).toString("base64url")}`;
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    return token;
  }
}

/** The process name of replica r (from 0) of a service: the first keeps the service's name. */
export function replicaName(service: string, replica: number): string {
  return replica === 0 ? service : `${service}-${replica + 1}`;
}

/** Starts a private nats-server (or cluster) and every service as its own supervised process(es). */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  await mkdir(path.join(options.dataDir, "nats"), { recursive: true });
  const apiToken = await devToken(options.dataDir, options.apiToken);
  const batchRunnerWorkDir = options.batchRunnerWorkDir ?? (await prepareBatchRunnerWorkDir(options.dataDir));
  const serviceNames = [...SERVICES.map((s) => s.name), "gateway"];
  const users = await serviceNatsUsers(options.dataDir, serviceNames);
  const replicas = options.replicas ?? 1;
  const { nats, natsCluster, natsEnv } = await startNats(options, users);
  const replicaIndexes = Array.from({ length: replicas }, (_, r) => r);
  const grpcPort = (offset: number, replica: number) => options.grpcBasePort + 5 * replica + offset;
  const addresses = Object.fromEntries(
    SERVICES.map((s) => [
      s.addrVar,
      replicaIndexes.map((r) => `127.0.0.1:${grpcPort(s.portOffset, r)}`).join(","),
    ]),
  );
  // The admin token goes to the gateway alone, even when the developer's shell exports it.
  const { DEV_API_TOKEN: _devToken, ...inherited } = process.env;
  const baseEnv: NodeJS.ProcessEnv = {
    // Test records link to their page on this gateway (html_url) unless a public address is given.
    MAINLINE_PUBLIC_URL: `http://127.0.0.1:${options.gatewayPort}`,
    ...inherited,
    ...options.env,
    ...natsEnv,
    ...addresses,
  };
  const processes = new Map<string, ServiceProcess>();
  const launch = (service: string, replica: number, env: NodeJS.ProcessEnv) => {
    const user = users.find((u) => u.user === service)!;
    const name = replicaName(service, replica);
    const proc = new ServiceProcess({
      name,
      entry: path.join(options.root, "services", service, "src", "main.ts"),
      cwd: options.root,
      env: { ...env, NATS_USER: user.user, NATS_PASSWORD: user.password },
      output: options.output,
      log: options.log,
    });
    processes.set(name, proc);
    proc.start();
  };
  for (const replica of replicaIndexes) {
    for (const service of SERVICES) {
      launch(service.name, replica, {
        ...baseEnv,
        GRPC_PORT: String(grpcPort(service.portOffset, replica)),
        ...(service.name === "batch-runner" ? { BATCH_RUNNER_WORK_DIR: batchRunnerWorkDir } : {}),
      });
    }
  }
  const gatewayPorts = replicaIndexes.map((r) => options.gatewayPort + r);
  for (const replica of replicaIndexes)
    launch("gateway", replica, {
      ...baseEnv,
      GATEWAY_PORT: String(gatewayPorts[replica]),
      DEV_API_TOKEN: apiToken,
    });
  const apiUrls = gatewayPorts.map((port) => `http://127.0.0.1:${port}/v1`);
  return {
    apiUrl: apiUrls[0]!,
    apiUrls,
    apiToken,
    natsUrl: natsEnv.NATS_URL,
    ...(nats ? { nats } : {}),
    ...(natsCluster ? { natsCluster } : {}),
    processes,
    async stop() {
      // Gateways first (no new requests), then the services, then NATS they all depend on.
      const isGateway = (name: string) => name === "gateway" || name.startsWith("gateway-");
      await Promise.all([...processes.entries()].filter(([n]) => isGateway(n)).map(([, p]) => p.stop()));
      await Promise.all([...processes.entries()].filter(([n]) => !isGateway(n)).map(([, p]) => p.stop()));
      await nats?.stop();
      await natsCluster?.stop();
    },
  };
}

/** One supervised nats-server, or a supervised cluster of them, and the variables that lead services to it. */
async function startNats(
  options: SystemOptions,
  users: NatsUser[],
): Promise<{
  nats?: NatsProcess;
  natsCluster?: NatsClusterProcess;
  natsEnv: { NATS_URL: string; NATS_REPLICAS?: string };
}> {
  const size = options.natsCluster ?? 1;
  if (size <= 1) {
    const nats = await NatsProcess.start(
      {
        storeDir: path.join(options.dataDir, "nats"),
        ...(options.natsPort ? { port: options.natsPort } : {}),
        keepStore: true,
        logFile: path.join(options.dataDir, "nats-server.log"),
        users,
      },
      options.log,
    );
    options.log(`nats-server with JetStream at ${nats.url} (data in ${path.join(options.dataDir, "nats")})`);
    return { nats, natsEnv: { NATS_URL: nats.url } };
  }
  // Its own folder: a single server's store (nats/) is not a cluster node's, and switching modes keeps both.
  const dataDir = path.join(options.dataDir, "nats-cluster");
  const natsCluster = await NatsClusterProcess.start(
    {
      size,
      dataDir,
      keepStore: true,
      logDir: dataDir,
      users,
      ...(options.natsPort ? { basePort: options.natsPort } : {}),
    },
    options.log,
  );
  await natsCluster.waitReady(60_000);
  options.log(`${size} nats-servers as one JetStream cluster at ${natsCluster.url} (data in ${dataDir})`);
  // R3 needs three nodes; JetStream refuses more replicas than the cluster has.
  return { natsCluster, natsEnv: { NATS_URL: natsCluster.url, NATS_REPLICAS: String(Math.min(size, 3)) } };
}

/** Polls a URL until it answers 200 or the time runs out. */
export async function waitForHttp(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}
