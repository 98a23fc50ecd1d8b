import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Thrown when no nats-server binary can be found; the message says how to install one. */
export class NatsServerMissingError extends Error {
  constructor(binary: string) {
    super(
      `nats-server binary not found (looked for "${binary}"). Install it with ` +
        `"apt-get install -y nats-server" (Debian) or set NATS_SERVER_BIN to its path.`,
    );
    this.name = "NatsServerMissingError";
  }
}

/** A NATS user of the server's `authorization` block; without permissions it may use every subject. */
export interface NatsUser {
  readonly user: string;
  readonly password: string;
  readonly permissions?: {
    readonly publish?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
    readonly subscribe?: { readonly allow?: readonly string[]; readonly deny?: readonly string[] };
  };
}

/** What a client passes to `connect()` of the `nats` package, and a service in NATS_USER / NATS_PASSWORD. */
export interface NatsCredentials {
  readonly user: string;
  readonly pass: string;
}

export interface NatsServerOptions {
  /** Store directory for JetStream; a fresh temporary one when omitted. */
  storeDir?: string;
  /** Fixed client port; a random free one (port -1) when omitted. */
  port?: number;
  host?: string;
  /** Keep the store directory when the server stops (dev mode keeps its data). */
  keepStore?: boolean;
  /** Log file; the server is silent when omitted. */
  logFile?: string;
  /**
   * Who may connect. Nobody connects without credentials: when omitted, one user with a random password
   * is made, and `credentials` / `connectOptions()` / `serviceEnv()` carry it.
   */
  users?: readonly NatsUser[];
  /** A name unique in a cluster (JetStream's peers are known by it); the default is nats-server's own. */
  serverName?: string;
  /** Joins a JetStream cluster (NatsCluster sets this): the route port, its credentials and the other nodes. */
  cluster?: NatsRoutes;
  /** The monitoring port (its /healthz says whether JetStream is current); none when omitted. */
  httpPort?: number;
}

/** The `cluster` block of one node: where it listens for routes and which routes it dials. */
export interface NatsRoutes {
  readonly name: string;
  readonly port: number;
  /** `nats-route://user:pass@127.0.0.1:port` of every node (its own is ignored by the server). */
  readonly routes: readonly string[];
  /** Routes are authenticated too: a process that finds the route port cannot join the cluster. */
  readonly user: string;
  readonly password: string;
}

/** The newest `nats-server-<version>/nats-server` under the user's cache folder for Mainline, if any. */
function cachedNatsServer(): string | undefined {
  const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), ".cache"), "mainline");
  let versions: string[];
  try {
    versions = readdirSync(cache).filter((name) => /^nats-server-\d+\.\d+\.\d+$/.test(name));
  } catch {
    return undefined;
  }
  const byVersion = (name: string) => name.slice("nats-server-".length).split(".").map(Number);
  versions.sort((a, b) => {
    const [x, y] = [byVersion(a), byVersion(b)];
    return (x[0]! - y[0]!) * 1e6 + (x[1]! - y[1]!) * 1e3 + (x[2]! - y[2]!);
  });
  for (const name of versions.reverse()) {
    const binary = path.join(cache, name, "nats-server");
    if (existsSync(binary)) return binary;
  }
  return undefined;
}

/** A real nats-server with JetStream, owned by the caller. */
export class NatsServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly port: number,
    readonly storeDir: string,
    private readonly workDir: string,
    private readonly keepStore: boolean,
    /** The first user's; what tests and services connect with. */
    readonly credentials: NatsCredentials,
  ) {}

  /** For `connect()` of the `nats` package: the server and the credentials. */
  connectOptions(): { servers: string; user: string; pass: string } {
    return { servers: this.url, ...this.credentials };
  }

  /** The variables a Mainline service reads to reach this server. */
  serviceEnv(): { NATS_URL: string; NATS_USER: string; NATS_PASSWORD: string } {
    return { NATS_URL: this.url, NATS_USER: this.credentials.user, NATS_PASSWORD: this.credentials.pass };
  }

  /** Resolves when the server process ends, for whatever reason (a supervisor restarts it). */
  exited(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => this.child.once("exit", () => resolve()));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /**
   * NATS_SERVER_BIN, else the newest server tools/scripts/ensure-nats-server.sh unpacked into the user's cache
   * (Debian 12's own is too old to keep compare-and-set on a cluster), else the one on PATH.
   */
  static binary(): string {
    return process.env.NATS_SERVER_BIN ?? cachedNatsServer() ?? "nats-server";
  }

  static isInstalled(): boolean {
    const probe = spawnSync(NatsServer.binary(), ["--version"], { stdio: "ignore" });
    return probe.error === undefined && probe.status === 0;
  }

  /** The binary, for tests that start nats-server their own way; a missing one fails the test (never a skip). */
  static requireInstalled(): string {
    const binary = NatsServer.binary();
    if (!NatsServer.isInstalled()) throw new NatsServerMissingError(binary);
    return binary;
  }

  static async start(options: NatsServerOptions = {}): Promise<NatsServer> {
    const binary = NatsServer.requireInstalled();
    const workDir = await mkdtemp(path.join(tmpdir(), "mainline-nats-"));
    const storeDir = options.storeDir ?? path.join(workDir, "js");
    const host = options.host ?? "127.0.0.1";
    const users = options.users ?? [{ user: "mainline", password: randomBytes(18).toString("base64url") }];
    const first = users[0];
    if (first === undefined) throw new Error("NatsServer.start: users must name at least one user");
    // port -1 lets the server choose; it writes the chosen ports into ports_file_dir.
    const config = [
      `host: "${host}"`,
      `port: ${options.port ?? -1}`,
      `ports_file_dir: "${workDir}"`,
      `jetstream { store_dir: "${storeDir}" }`,
      // The embedded store keeps a queue's whole state in one key-value entry; 1 MB (the default) is too small
      // for a queue with a few thousand PRs in flight.
      "max_payload: 8MB",
      options.logFile ? `log_file: "${options.logFile}"` : "",
      options.serverName ? `server_name: ${JSON.stringify(options.serverName)}` : "",
      options.httpPort ? `http_port: ${options.httpPort}` : "",
      options.cluster ? clusterBlock(options.cluster, host) : "",
      authorizationBlock(users),
    ].join("\n");
    const configFile = path.join(workDir, "nats.conf");
    // The file holds passwords: readable by this user only.
    await writeFile(configFile, config, { mode: 0o600 });
    const child = spawn(binary, ["-c", configFile], { stdio: ["ignore", "ignore", "pipe"] });
    // What the server said last, so an early exit (port taken, store locked) explains itself.
    let said = "";
    child.stderr.on("data", (chunk: Buffer) => {
      said = (said + chunk.toString("utf8")).slice(-2000);
    });
    let exited: string | undefined;
    child.once("exit", (code, signal) => {
      exited = `nats-server exited early (code ${code}, signal ${signal}): ${said.trim()}`;
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (exited) throw new Error(exited);
      const portsFile = (await readdir(workDir)).find((f) => f.endsWith(".ports"));
      if (portsFile) {
        const url = portsOf(await readFile(path.join(workDir, portsFile), "utf8"))?.nats?.[0];
        if (url) {
          const port = Number(new URL(url).port);
          return new NatsServer(
            child,
            `nats://${host}:${port}`,
            port,
            storeDir,
            workDir,
            options.keepStore ?? false,
            { user: first.user, pass: first.password },
          );
        }
      }
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`nats-server did not report its ports within 10 s (config ${configFile})`);
      }
      await sleep(20);
    }
  }

  /** Sends a signal and returns at once: SIGSTOP freezes the server (a hung node), SIGCONT thaws it. */
  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  /** Stops the server; SIGKILL models a crash, SIGTERM a clean shutdown. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      this.child.kill(signal);
      // A frozen (SIGSTOPped) server acts on SIGTERM only once it runs again.
      if (signal !== "SIGKILL") this.child.kill("SIGCONT");
      await exited;
    }
    // The work dir holds the config (with passwords) and, unless given elsewhere, the store.
    const storeInside = !path.relative(this.workDir, this.storeDir).startsWith("..");
    if (!this.keepStore || !storeInside) await rm(this.workDir, { recursive: true, force: true });
  }
}

/** The ports file's content, or undefined while the server is still writing it (seen under load). */
function portsOf(text: string): { nats?: string[] } | undefined {
  try {
    return JSON.parse(text) as { nats?: string[] };
  } catch {
    return undefined;
  }
}

function clusterBlock(cluster: NatsRoutes, host: string): string {
  return [
    "cluster {",
    `  name: ${JSON.stringify(cluster.name)}`,
    `  listen: "${host}:${cluster.port}"`,
    `  authorization { user: ${JSON.stringify(cluster.user)}, password: ${JSON.stringify(cluster.password)} }`,
    `  routes: ${JSON.stringify(cluster.routes)}`,
    "}",
  ].join("\n");
}

/** The `authorization` block of nats-server's config; JSON strings are valid in its syntax. */
function authorizationBlock(users: readonly NatsUser[]): string {
  const entries = users.map((u) => {
    const fields = [`user: ${JSON.stringify(u.user)}`, `password: ${JSON.stringify(u.password)}`];
    if (u.permissions) fields.push(`permissions: ${JSON.stringify(u.permissions)}`);
    return `    { ${fields.join(", ")} }`;
  });
  return `authorization {\n  users = [\n${entries.join("\n")}\n  ]\n}`;
}
