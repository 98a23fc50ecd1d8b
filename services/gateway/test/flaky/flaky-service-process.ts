import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { freePort, NatsServer, nodeEntryArgs } from "@mainline/testing";
import { checkGrpcHealth } from "@mainline/kit/grpc/index";

const ENTRY = fileURLToPath(new URL("../../../flaky-analytics/src/main.ts", import.meta.url));

/** The real flaky-analytics service as its own process (as `make dev` runs it), on its own nats-server. */
export class FlakyServiceProcess {
  private constructor(
    readonly address: string,
    private readonly child: ChildProcess,
    private readonly nats: NatsServer,
  ) {}

  static async start(env: Record<string, string> = {}): Promise<FlakyServiceProcess> {
    const nats = await NatsServer.start();
    const port = await freePort();
    const child = spawn(process.execPath, nodeEntryArgs(ENTRY), {
      env: { ...process.env, ...nats.serviceEnv(), GRPC_PORT: String(port), LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const address = `127.0.0.1:${port}`;
    const service = new FlakyServiceProcess(address, child, nats);
    for (let i = 0; i < 150; i++) {
      if (child.exitCode !== null) throw new Error(`flaky-analytics exited with ${child.exitCode}`);
      if (await checkGrpcHealth(address, 200)) return service;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await service.stop();
    throw new Error("flaky-analytics did not become SERVING within 15 s");
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      this.child.kill("SIGTERM");
      await once(this.child, "exit");
    }
    await this.nats.stop();
  }
}
