import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { createLogger } from "@mainline/kit/logging/index";
import { Shutdown, type ServiceRuntime } from "@mainline/kit/service/index";
import { startGrpcServer, type GrpcServerHandle } from "@mainline/kit/grpc/index";
import { openStore } from "@mainline/kit/store/index";
import { startQueueCoordinator, type CoordinatorOptions } from "@mainline/queue-coordinator";

/** A real queue-coordinator (gRPC, embedded store, JetStream) in this process, on a nats-server of its own. */
export class CoordinatorHarness {
  private constructor(
    readonly nats: NatsServer,
    readonly nc: NatsConnection,
    readonly runtime: ServiceRuntime,
    readonly server: GrpcServerHandle,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.server.port}`;
  }

  static async start(options: CoordinatorOptions & { nats?: NatsServer } = {}): Promise<CoordinatorHarness> {
    const nats = options.nats ?? (await NatsServer.start());
    return CoordinatorHarness.startOn(nats, options);
  }

  /** Another coordinator process on the same NATS (a restart, or a second replica). */
  static async startOn(
    nats: NatsServer,
    options: CoordinatorOptions & { port?: number } = {},
  ): Promise<CoordinatorHarness> {
    const nc = await connect(nats.connectOptions());
    const logger = createLogger("queue-coordinator-test", process.env.TEST_LOG_LEVEL ?? "silent");
    const store = await openStore({ database: "mainline-queue-coordinator", nats: nc });
    const runtime: ServiceRuntime = {
      name: "queue-coordinator",
      logger,
      nats: nc,
      store,
      shutdown: new Shutdown(logger),
    };
    const { port, ...coordinatorOptions } = options;
    const { grpc } = await startQueueCoordinator(runtime, { sweepEveryMs: 200, ...coordinatorOptions });
    // A fixed port lets a test restart the coordinator where its clients already point.
    const server = await startGrpcServer({ host: "127.0.0.1", port: port ?? 0, services: [grpc] });
    server.setServing(true);
    return new CoordinatorHarness(nats, nc, runtime, server);
  }

  /** A clean stop in the shutdown order. */
  async stop(): Promise<void> {
    await this.runtime.shutdown.run();
    await this.server.shutdown(100);
    await this.runtime.store.close();
    await this.nc.close();
  }
}
