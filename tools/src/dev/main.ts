import path from "node:path";
import { devLogLine, devLogOptions } from "./dev-log-line.js";
import { startSystem, waitForHttp } from "./system.js";
import { checkoutRoot } from "../checkout-root.js";

/**
 * `make dev`: the whole system on this machine. Data lives under .data/ and survives a restart; Ctrl-C stops
 * everything in order.
 */
const root = checkoutRoot(import.meta.url);
const log = (message: string) => process.stdout.write(`[dev] ${message}\n`);
const quiet = process.env.DEV_QUIET === "1";
const logFormat = devLogOptions(process.env);

/** DEV_NATS_CLUSTER / DEV_REPLICAS: a whole number in [1, max], or 1 when unset; anything else stops here. */
function count(variable: string, max: number): number {
  const raw = process.env[variable];
  if (raw === undefined || raw === "") return 1;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > max) {
    process.stderr.write(
      `[dev] ${variable}: expected a whole number from 1 to ${max} (got ${JSON.stringify(raw)})\n`,
    );
    process.exit(2);
  }
  return value;
}

const system = await startSystem({
  root,
  dataDir: path.resolve(root, process.env.DEV_DATA_DIR ?? ".data"),
  gatewayPort: Number(process.env.GATEWAY_PORT ?? 8080),
  natsPort: Number(process.env.DEV_NATS_PORT ?? 14222),
  grpcBasePort: Number(process.env.DEV_GRPC_BASE_PORT ?? 50050),
  natsCluster: count("DEV_NATS_CLUSTER", 5),
  replicas: count("DEV_REPLICAS", 4),
  apiToken: process.env.DEV_API_TOKEN,
  env: { LOG_LEVEL: process.env.LOG_LEVEL ?? "info", WEBHOOKS_ALLOW_LOOPBACK: "true" },
  output: (line) => {
    const shown = quiet ? undefined : devLogLine(line, logFormat);
    if (shown !== undefined) process.stdout.write(`${shown}\n`);
  },
  log,
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  log("stopping every service…");
  system.stop().then(
    () => {
      log("stopped");
      process.exit(0);
    },
    (error: unknown) => {
      log(`stop failed: ${String(error)}`);
      process.exit(1);
    },
  );
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);

// A fresh cluster (DEV_NATS_CLUSTER) places every stream and bucket on three nodes: on a busy machine a service may
// time out creating them and be restarted by its supervisor, so keep waiting after saying so.
let up = await waitForHttp(`${system.apiUrl}/healthz`, 60_000);
if (!up) {
  log(
    `the gateway did not answer ${system.apiUrl}/healthz within 60 s; still waiting (see the log lines above)`,
  );
  up = await waitForHttp(`${system.apiUrl}/healthz`, 540_000);
}
if (up) {
  log(`Mainline API: ${system.apiUrl}`);
  for (const other of system.apiUrls.slice(1)) log(`Mainline API (another gateway replica): ${other}`);
  log(`API token for org "dev": ${system.apiToken}`);
  log(`web page: ${new URL(system.apiUrl).origin}/ (sign in with the token above)`);
  log(`try: curl -s ${system.apiUrl}/healthz`);
} else {
  log(`the gateway did not answer ${system.apiUrl}/healthz within 10 minutes; see the log lines above`);
}
