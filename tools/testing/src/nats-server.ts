import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
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
  ) {}

  static binary(): string {
    return process.env.NATS_SERVER_BIN ?? "nats-server";
  }

  static isInstalled(): boolean {
    const probe = spawnSync(NatsServer.binary(), ["--version"], { stdio: "ignore" });
    return probe.error === undefined && probe.status === 0;
  }

  static async start(options: NatsServerOptions = {}): Promise<NatsServer> {
    const binary = NatsServer.binary();
    if (!NatsServer.isInstalled()) throw new NatsServerMissingError(binary);
    const workDir = await mkdtemp(path.join(tmpdir(), "mainline-nats-"));
    const storeDir = options.storeDir ?? path.join(workDir, "js");
    const host = options.host ?? "127.0.0.1";
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
    ].join("\n");
    const configFile = path.join(workDir, "nats.conf");
    await writeFile(configFile, config);
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
        const ports = JSON.parse(await readFile(path.join(workDir, portsFile), "utf8")) as {
          nats?: string[];
        };
        const url = ports.nats?.[0];
        if (url) {
          const port = Number(new URL(url).port);
          return new NatsServer(
            child,
            `nats://${host}:${port}`,
            port,
            storeDir,
            workDir,
            options.keepStore ?? false,
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

  /** Stops the server; SIGKILL models a crash, SIGTERM a clean shutdown. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once("exit", resolve));
      this.child.kill(signal);
      await exited;
    }
    if (!this.keepStore) await rm(this.workDir, { recursive: true, force: true });
  }
}
