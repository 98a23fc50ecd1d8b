import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { prepareBatchRunnerWorkDir } from "./batch-runner-work-dir.js";
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
  gatewayPort: number;
  natsPort?: number;
  /** gRPC ports are grpcBasePort + 1..5. */
  grpcBasePort: number;
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
  readonly natsUrl: string;
  readonly nats: NatsProcess;
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

/** Starts a private nats-server and every service as its own supervised process. */
export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  await mkdir(path.join(options.dataDir, "nats"), { recursive: true });
  const apiToken = await devToken(options.dataDir, options.apiToken);
  const batchRunnerWorkDir = options.batchRunnerWorkDir ?? (await prepareBatchRunnerWorkDir(options.dataDir));
  const serviceNames = [...SERVICES.map((s) => s.name), "gateway"];
  const users = await serviceNatsUsers(options.dataDir, serviceNames);
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
  const addresses = Object.fromEntries(
    SERVICES.map((s) => [s.addrVar, `127.0.0.1:${options.grpcBasePort + s.portOffset}`]),
  );
  // The admin token goes to the gateway alone, even when the developer's shell exports it.
  const { DEV_API_TOKEN: _devToken, ...inherited } = process.env;
  const baseEnv: NodeJS.ProcessEnv = {
    // Test records link to their page on this gateway (html_url) unless a public address is given.
    MAINLINE_PUBLIC_URL: `http://127.0.0.1:${options.gatewayPort}`,
    ...inherited,
    ...options.env,
    NATS_URL: nats.url,
    ...addresses,
  };
  const processes = new Map<string, ServiceProcess>();
  const launch = (name: string, env: NodeJS.ProcessEnv) => {
    const user = users.find((u) => u.user === name)!;
    const proc = new ServiceProcess({
      name,
      entry: path.join(options.root, "services", name, "src", "main.ts"),
      cwd: options.root,
      env: { ...env, NATS_USER: user.user, NATS_PASSWORD: user.password },
      output: options.output,
      log: options.log,
    });
    processes.set(name, proc);
    proc.start();
  };
  for (const service of SERVICES) {
    launch(service.name, {
      ...baseEnv,
      GRPC_PORT: String(options.grpcBasePort + service.portOffset),
      ...(service.name === "batch-runner" ? { BATCH_RUNNER_WORK_DIR: batchRunnerWorkDir } : {}),
    });
  }
  launch("gateway", { ...baseEnv, GATEWAY_PORT: String(options.gatewayPort), DEV_API_TOKEN: apiToken });
  return {
    apiUrl: `http://127.0.0.1:${options.gatewayPort}/v1`,
    apiToken,
    natsUrl: nats.url,
    nats,
    processes,
    async stop() {
      // Gateway first (no new requests), then the services, then NATS they all depend on.
      await processes.get("gateway")?.stop();
      await Promise.all([...processes.entries()].filter(([n]) => n !== "gateway").map(([, p]) => p.stop()));
      await nats.stop();
    },
  };
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
