import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { connect } from "nats";
import { NatsServer } from "@mainline/testing";

/**
 * A real nats-server on `port` with JetStream in `storeDir`, whose config file (written at `configFile`) ends
 * with `include <include>;`: an authorization block, as the chart or the NATS chart's values give it. Resolves
 * once the server answers and refuses a client without credentials.
 */
export async function natsWithAuthorization(options: {
  configFile: string;
  port: number;
  storeDir: string;
  include: string;
}): Promise<ChildProcess> {
  const { configFile, port, storeDir, include } = options;
  await writeFile(
    configFile,
    `port: ${port}\nhost: "127.0.0.1"\njetstream { store_dir: "${storeDir}" }\ninclude ${include};\n`,
  );
  const server = spawn(NatsServer.binary(), ["-c", configFile], { stdio: "ignore" });
  const url = `nats://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = await connect({ servers: url, reconnect: false }).catch((e: { code?: string }) => e);
    if ("code" in probe && probe.code === "AUTHORIZATION_VIOLATION") return server;
    if ("close" in probe) await probe.close();
    if (Date.now() > deadline) {
      server.kill("SIGTERM");
      throw new Error(`nats-server with ${configFile} did not come up refusing anonymous clients`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
