import {
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";

export interface GrpcService {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

export interface GrpcServerHandle {
  /** The bound port (useful when 0 asked the OS for one). */
  readonly port: number;
  setServing(serving: boolean): void;
  /** Lets in-flight calls finish for up to `graceMs`, then cuts the rest. */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * Serves the given services plus grpc.health.v1. Health starts NOT_SERVING; the caller flips it once every
 * dependency is connected, and back first thing on SIGTERM (DESIGN rule 5).
 */
export async function startGrpcServer(options: {
  host?: string;
  port: number;
  services: GrpcService[];
}): Promise<GrpcServerHandle> {
  const server = new Server({
    "grpc.max_receive_message_length": 32 * 1024 * 1024,
    // channelz keeps per-call statistics for a debugging service we do not expose: cost on every call, no reader.
    "grpc.enable_channelz": 0,
  });
  const health = new HealthImplementation({ "": "NOT_SERVING" });
  health.addToServer(server);
  for (const service of options.services) server.addService(service.definition, service.implementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${options.host ?? "0.0.0.0"}:${options.port}`,
      ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)),
    );
  });
  const setServing = (serving: boolean) => {
    const status = serving ? "SERVING" : "NOT_SERVING";
    health.setStatus("", status);
    for (const service of options.services) {
      const first = Object.values(service.definition)[0];
      const name = first?.path.split("/")[1];
      if (name) health.setStatus(name, status);
    }
  };
  return {
    port,
    setServing,
    shutdown: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
