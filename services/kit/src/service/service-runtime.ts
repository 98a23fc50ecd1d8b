import { connect, Events, type NatsConnection } from "nats";
import { createLogger, type Logger } from "../logging/index.js";
import { startTelemetry } from "../telemetry/index.js";
import { openStore, type Store } from "../store/index.js";
import type { Replication } from "../bus/index.js";
import { startGrpcServer, type GrpcServerHandle, type GrpcService } from "../grpc/index.js";
import { ConfigError, natsServers } from "../config/index.js";
import { Shutdown } from "./shutdown.js";

export interface RuntimeOptions {
  name: string;
  natsUrl: string;
  /** NATS_USER / NATS_PASSWORD: both or neither (a server without authorization). */
  natsUser?: string | undefined;
  natsPassword?: string | undefined;
  logLevel?: string;
  otlpEndpoint?: string | undefined;
  /** MongoDB when set; the embedded store over NATS otherwise. */
  mongodbUri?: string | undefined;
  /** The service's own database; defaults to "mainline-<name>". */
  database?: string;
  /** NATS_REPLICAS: copies of every stream, bucket and object store the service creates; 1 when omitted. */
  natsReplicas?: number;
}

/** What every service has once started: its logger, its NATS connection, its store and its shutdown plan. */
export interface ServiceRuntime {
  readonly name: string;
  readonly logger: Logger;
  readonly nats: NatsConnection;
  readonly store: Store;
  readonly shutdown: Shutdown;
  /** What the service's streams, buckets and object stores are created (or raised) with. */
  readonly replication?: Replication;
}

export async function startServiceRuntime(options: RuntimeOptions): Promise<ServiceRuntime> {
  const credentials = natsCredentials(options);
  const telemetry = startTelemetry({ serviceName: options.name, otlpEndpoint: options.otlpEndpoint });
  const logger = createLogger(options.name, options.logLevel);
  const shutdown = new Shutdown(logger);
  shutdown.on("flush-telemetry", "telemetry", () => telemetry.shutdown());
  const nats = await connect({
    servers: natsServers(options.natsUrl),
    ...credentials,
    name: options.name,
    // A NATS restart must not kill the service: keep reconnecting, and let health/readiness tell the story.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // A frozen node (a hung machine) keeps the socket open and answers nothing: two missed pings a second
    // apart take the service to another node of the cluster, instead of the client's default of minutes.
    pingInterval: 1_000,
    maxPingOut: 2,
    // A frozen node still accepts the TCP connection (the kernel does) and then never greets: a reconnect that
    // picks it waited the client's default of 20 s for its INFO before trying a live node.
    timeout: 2_000,
  });
  shutdown.on("drain-nats", "nats", () => nats.drain());
  void (async () => {
    for await (const status of nats.status()) {
      if (status.type === Events.Disconnect || status.type === Events.Reconnect)
        logger.warn({ nats: status.type }, "nats connection");
    }
  })();
  const store = await openStore({
    database: options.database ?? `mainline-${options.name}`,
    mongodbUri: options.mongodbUri,
    nats,
    replicas: options.natsReplicas,
    log: (message, fields) => logger.info(fields, message),
  });
  shutdown.on("close-store", "store", () => store.close());
  logger.info({ nats: options.natsUrl, store: options.mongodbUri ? "mongodb" : "embedded" }, "connected");
  const replication = { replicas: options.natsReplicas ?? 1, logger };
  return { name: options.name, logger, nats, store, shutdown, replication };
}

function natsCredentials(options: RuntimeOptions): { user: string; pass: string } | Record<string, never> {
  const { natsUser: user, natsPassword: pass } = options;
  if (user !== undefined && pass !== undefined) return { user, pass };
  if (user !== undefined)
    throw new ConfigError(["NATS_PASSWORD: expected a password when NATS_USER is set (unset)"]);
  if (pass !== undefined)
    throw new ConfigError(["NATS_USER: expected a user when NATS_PASSWORD is set (unset)"]);
  return {};
}

/** Serves gRPC (with health) and registers its place in the shutdown order. */
export async function serveGrpc(
  runtime: ServiceRuntime,
  options: { port: number; host?: string; services: GrpcService[] },
): Promise<GrpcServerHandle> {
  const server = await startGrpcServer(options);
  runtime.shutdown.on("health-not-serving", "grpc health", () => server.setServing(false));
  runtime.shutdown.on("close-grpc", "grpc", () => server.shutdown());
  server.setServing(true);
  runtime.logger.info({ port: server.port }, "serving gRPC");
  return server;
}
