import { connect, type NatsConnection } from "nats";
import type { NatsServer } from "@mainline/testing";
import type { ConsumerHandle } from "@mainline/kit/bus/index";
import {
  callUnary,
  createGrpcClient,
  startGrpcServer,
  type GrpcServerHandle,
} from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { createFlakyService } from "@mainline/flaky-analytics";
import { FlakyAnalyticsClient, QuarantineOverride } from "@mainline/proto/flaky";

interface Repo {
  host: string;
  owner: string;
  name: string;
}

/**
 * A real flaky-analytics in this process on a test's NATS: it ingests the queue's JUnit from the jobs stream and
 * answers the coordinator's questions over gRPC (`address`, for a coordinator's flakyAnalyticsAddress).
 */
export class FlakyHarness {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly store: Store,
    private readonly consumer: ConsumerHandle,
    private readonly server: GrpcServerHandle,
    readonly client: FlakyAnalyticsClient,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.server.port}`;
  }

  static async startOn(nats: NatsServer, database = "flaky-e2e"): Promise<FlakyHarness> {
    const nc = await connect(nats.connectOptions());
    const store = await openStore({ database, nats: nc });
    const service = await createFlakyService({
      nats: nc,
      store,
      logger: createLogger("flaky-e2e", process.env.TEST_LOG_LEVEL ?? "silent"),
      pageTokenKey: `${database}-page-token-key`,
      publicBaseUrl: "http://mainline.test",
    });
    const consumer = await service.startConsuming();
    const server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [service.grpc] });
    server.setServing(true);
    const client = createGrpcClient(FlakyAnalyticsClient, `127.0.0.1:${server.port}`);
    return new FlakyHarness(nc, store, consumer, server, client);
  }

  /** Quarantining on for the repository, with `testIds` forced into quarantine. */
  async quarantine(org: string, repo: Repo, testIds: readonly string[]): Promise<void> {
    await callUnary(this.client.updateRepositorySettings.bind(this.client), {
      org,
      repo,
      quarantiningEnabled: true,
    });
    for (const testId of testIds) {
      await callUnary(this.client.setTestQuarantineOverride.bind(this.client), {
        org,
        repo,
        testId,
        quarantineOverride: QuarantineOverride.ALWAYS_QUARANTINE,
      });
    }
  }

  async stop(): Promise<void> {
    this.client.close();
    await this.consumer.stop();
    await this.server.shutdown(100);
    await this.store.close();
    await this.nc.close();
  }
}
