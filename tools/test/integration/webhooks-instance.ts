import { connect, type NatsConnection } from "nats";
import type { GitHubDouble, TestAppCredentials } from "@mainline/testing";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { createGrpcClient, startGrpcServer, type GrpcServerHandle } from "@mainline/kit/grpc/index";
import { createLogger, type Logger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { WebhooksClient } from "@mainline/proto/webhooks";
import type { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { WebhooksApp } from "@mainline/webhooks";

const WEBHOOKS_SETTINGS = {
  WEBHOOKS_ALLOW_LOOPBACK: true,
  WEBHOOKS_ALLOWED_CIDRS: [],
  WEBHOOKS_RETRY_SCHEDULE_MS: [100],
  WEBHOOKS_RETRY_JITTER: 0,
  WEBHOOKS_DELIVERY_TIMEOUT_MS: 2_000,
  WEBHOOKS_ACK_WAIT_MS: 1_000,
  WEBHOOKS_RECONCILE_INTERVAL_MS: 60_000,
};

/** The GitHub App's client against the double, without the spacing and back-off that would slow tests down. */
export function doubleAppClient(
  double: GitHubDouble,
  app: TestAppCredentials,
  logger: Logger,
): GitHubAppClient {
  return new GitHubAppClient({
    settings: { appId: app.appId, privateKey: app.privateKey, webhookSecret: undefined, apiUrl: double.url },
    logger,
    writeSpacingMs: 0,
    notificationSpacingMs: 0,
    retryUnitMs: 10,
  });
}

/** The webhooks service in process, with its GitHub App talking to the double; kill() plays a crash. */
export class WebhooksInstance {
  private constructor(
    readonly nc: NatsConnection,
    readonly store: Store,
    readonly app: WebhooksApp,
    readonly server: GrpcServerHandle,
  ) {}

  static async start(
    coordinator: CoordinatorHarness,
    double: GitHubDouble,
    github: { app: TestAppCredentials; publicUrl: string },
  ): Promise<WebhooksInstance> {
    const { app, publicUrl } = github;
    const nc = await connect(coordinator.nats.connectOptions());
    const store = await openStore({ database: "mainline-webhooks", nats: nc });
    const logger = createLogger("webhooks-test", process.env.TEST_LOG_LEVEL ?? "silent");
    const webhooks = await WebhooksApp.start({
      nats: nc,
      store,
      logger,
      settings: WEBHOOKS_SETTINGS,
      github: {
        client: doubleAppClient(double, app, logger),
        coordinator: createGrpcClient(QueueCoordinatorClient, coordinator.address),
        publicUrl,
        leaseMs: 1_500,
        maxAttempts: 10,
        retryMs: 200,
        pollMs: 200,
      },
    });
    const server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [webhooks.grpc] });
    server.setServing(true);
    return new WebhooksInstance(nc, store, webhooks, server);
  }

  get api(): WebhooksClient {
    return createGrpcClient(WebhooksClient, `127.0.0.1:${this.server.port}`);
  }

  async stop(): Promise<void> {
    await this.app.stop();
    await this.server.shutdown(100);
    await this.store.close();
    await this.nc.close();
  }

  /** Dies mid-work: nothing more is recorded or acked; what it held is picked up by the next instance. */
  async kill(): Promise<void> {
    this.app.kill();
    await this.server.shutdown(0);
    await this.nc.close();
  }
}
