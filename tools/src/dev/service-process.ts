import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { once } from "node:events";
import { nodeEntryArgs } from "@mainline/testing";

export interface ServiceProcessOptions {
  name: string;
  /** Entry file, run with tsx against workspace sources. */
  entry: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where each output line goes (already prefixed with the service name). */
  output: (line: string) => void;
  /** Supervisor messages: starts, crashes, restarts. */
  log: (message: string) => void;
}

const MIN_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
/** A process that stayed up this long is considered healthy again; its next crash restarts quickly. */
const STABLE_AFTER_MS = 30_000;

/**
 * One service under supervision: restarted with exponential backoff whenever it exits without being asked to,
 * so `kill -9` of a service under `make dev` is followed by its restart.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private stopping = false;
  private backoffMs = MIN_BACKOFF_MS;
  private restartTimer: NodeJS.Timeout | undefined;
  restarts = 0;

  constructor(private readonly options: ServiceProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    const { name, entry, env, cwd, output, log } = this.options;
    const startedAt = Date.now();
    const child = spawn(process.execPath, nodeEntryArgs(entry, cwd), {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => output(`[${name}] ${line}`));
    }
    child.once("exit", (code, signal) => {
      if (this.stopping) return;
      if (Date.now() - startedAt > STABLE_AFTER_MS) this.backoffMs = MIN_BACKOFF_MS;
      const delay = this.backoffMs;
      this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
      this.restarts += 1;
      log(
        `${name} exited (code ${code}, signal ${signal}); restarting in ${delay} ms (restart #${this.restarts})`,
      );
      this.restartTimer = setTimeout(() => this.start(), delay);
    });
  }

  /** SIGTERM, then SIGKILL after the grace period. */
  async stop(graceMs = 15_000): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
}
