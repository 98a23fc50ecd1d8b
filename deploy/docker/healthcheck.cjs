// Container health check (docker-compose, `docker run --health-cmd`): the gateway's /healthz, or
// grpc.health.v1 of a gRPC service on its GRPC_PORT. Exits 0 when healthy. Kubernetes uses its own probes.
const service = process.env.MAINLINE_SERVICE;

async function healthy() {
  if (service === "gateway") {
    const port = process.env.GATEWAY_PORT ?? "8080";
    const response = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  }
  if (!process.env.GRPC_PORT) throw new Error("GRPC_PORT is not set");
  const { checkGrpcHealth } = await import("@mainline/kit/grpc/index");
  return checkGrpcHealth(`127.0.0.1:${process.env.GRPC_PORT}`, 2000);
}

healthy().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error) => {
    console.error(`healthcheck ${service}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
