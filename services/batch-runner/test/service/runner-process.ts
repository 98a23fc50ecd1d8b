import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { eventually, freePort, type NatsServer, nodeEntryArgs } from "@mainline/testing";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const BATCH_RUNNER_MAIN = path.join(ROOT, "services/batch-runner/src/main.ts");

/** A batch-runner replica as its own OS process, started as make dev starts it, so that "dies" can mean SIGKILL. */
export class RunnerProcess {
  readonly log: string[] = [];

  private constructor(
    readonly name: string,
    readonly workDir: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(
    name: string,
    nats: NatsServer,
    env: Record<string, string> = {},
  ): Promise<RunnerProcess> {
    const port = await freePort();
    const workDir = await mkdtemp(path.join(tmpdir(), `mainline-batch-runner-${name}-`));
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...nats.serviceEnv(),
      GRPC_PORT: String(port),
      BATCH_RUNNER_WORK_DIR: workDir,
      LOG_LEVEL: "info",
      ...env,
    };
    delete childEnv.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete childEnv.MONGODB_URI;
    const child = spawn(process.execPath, nodeEntryArgs(BATCH_RUNNER_MAIN), {
      cwd: ROOT,
      env: childEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const replica = new RunnerProcess(name, workDir, child);
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on("line", (line) => replica.log.push(line));
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited:\n${replica.log.join("\n")}`);
      if (!(await checkGrpcHealth(`127.0.0.1:${port}`))) throw new Error(`${name} is not serving yet`);
    }, 60_000);
    return replica;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Dies at once: no handler finishes, nothing is acked or handed back. */
  async kill(): Promise<void> {
    if (!this.running) return;
    const exited = once(this.child, "exit");
    this.child.kill("SIGKILL");
    await exited;
  }

  /** Graceful, as on SIGTERM; then its work dir goes. */
  async stop(): Promise<void> {
    if (this.running) {
      const exited = once(this.child, "exit");
      this.child.kill("SIGTERM");
      await exited;
    }
    await rm(this.workDir, { recursive: true, force: true });
  }
}
