import { credentials, makeGenericClientConstructor, type Client, type ServiceError } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";

const HealthClient = makeGenericClientConstructor(healthService, "Health") as unknown as new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
) => Client & {
  check(
    request: { service: string },
    options: { deadline: Date },
    callback: (error: ServiceError | null, response?: { status: string | number }) => void,
  ): void;
};

/**
 * Asks a service's grpc.health.v1 whether it is SERVING. Used by the gateway's /readyz, the dev supervisor
 * and tests; Kubernetes probes use the same protocol. For several replicas (`a:1,b:2`), whether one of them
 * is: calls go round-robin to those that answer, so one serving replica serves.
 */
export async function checkGrpcHealth(address: string, timeoutMs = 1000): Promise<boolean> {
  const replicas = address.split(",");
  if (replicas.length > 1) {
    const answers = await Promise.all(replicas.map((replica) => checkGrpcHealth(replica, timeoutMs)));
    return answers.some(Boolean);
  }
  const client = new HealthClient(address, credentials.createInsecure());
  try {
    return await new Promise<boolean>((resolve) => {
      client.check({ service: "" }, { deadline: new Date(Date.now() + timeoutMs) }, (error, response) => {
        resolve(!error && (response?.status === "SERVING" || response?.status === 1));
      });
    });
  } finally {
    client.close();
  }
}
