import path from "node:path";
import { connect, type NatsConnection } from "nats";
import { NatsServer, type TestAppCredentials } from "@mainline/testing";
import { startBatchRunner, type BatchRunner } from "@mainline/batch-runner";
import { createFlakyService } from "@mainline/flaky-analytics";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { GitHubAppClient } from "@mainline/kit/github/index";
import { createGrpcClient, startGrpcServer, type GrpcServerHandle } from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { WebhooksApp } from "@mainline/webhooks";
import { type CliIo, runCli, type TextSink } from "@mainline/cli-src";

/** A sink that keeps what was written, as a terminal (isTTY) or as a pipe. */
export class CapturedSink implements TextSink {
  text = "";
  constructor(
    readonly isTTY = false,
    readonly columns = 120,
  ) {}
  write(text: string): boolean {
    this.text += text;
    return true;
  }
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The real services in this process: queue-coordinator, batch-runner, flaky-analytics and webhooks on one
 * nats-server, and the gateway's HTTP app in front of them, so the CLI talks to real HTTP end to end.
 */
export class MainlineFixture {
  private constructor(
    readonly gateway: GatewayHarness,
    /** An ordinary token of the organisation "acme". */
    readonly token: string,
    /** An admin token (of the organisation "root"). */
    readonly adminToken: string,
    private readonly stops: (() => Promise<unknown>)[],
    /** The queue-coordinator goes away (the gateway answers 503) and comes back at the same address. */
    readonly coordinator: { stop(): Promise<void>; start(): Promise<void> },
  ) {}

  /**
   * `github`: the GitHub App's webhook secret, which turns the App's routes on; with `app` (a GitHub double's
   * URL and the App's credentials) the webhooks service talks back to it and the gateway posts command replies.
   */
  static async start(
    workDir: string,
    options: {
      github?: { webhookSecret: string; app?: { apiUrl: string; credentials: TestAppCredentials } };
    } = {},
  ): Promise<MainlineFixture> {
    const stops: (() => Promise<unknown>)[] = [];
    const logger = createLogger("cli-test", process.env.TEST_LOG_LEVEL ?? "silent");
    try {
      const nats = await NatsServer.start();
      stops.unshift(() => nats.stop());
      let coordinator = await CoordinatorHarness.start({ nats });
      stops.unshift(() => coordinator.stop());
      const coordinatorControl = {
        stop: () => coordinator.stop(),
        start: async () => {
          coordinator = await CoordinatorHarness.startOn(nats, { port: coordinator.server.port });
        },
      };

      const connection = async (): Promise<NatsConnection> => {
        const nc = await connect(nats.connectOptions());
        stops.unshift(() => nc.close());
        return nc;
      };
      const store = async (database: string): Promise<Store> => {
        const opened = await openStore({ database, nats: await connection() });
        stops.unshift(() => opened.close());
        return opened;
      };
      const serve = async (service: Parameters<typeof startGrpcServer>[0]["services"][number]) => {
        const server: GrpcServerHandle = await startGrpcServer({
          host: "127.0.0.1",
          port: 0,
          services: [service],
        });
        server.setServing(true);
        stops.unshift(() => server.shutdown(100));
        return `127.0.0.1:${server.port}`;
      };

      const runner: BatchRunner = await startBatchRunner({
        nats: await connection(),
        logger,
        settings: {
          workDir: path.join(workDir, "batch-runner"),
          gitIdentity: { name: "Mainline", email: "mainline@localhost" },
          jobConcurrency: 2,
          maxRunSeconds: 120,
        },
      });
      stops.unshift(() => runner.stop());

      const flakyNc = await connection();
      const flaky = await createFlakyService({
        nats: flakyNc,
        store: await store("flaky-analytics"),
        logger,
        pageTokenKey: "cli-test-page-token-key",
        publicBaseUrl: "http://127.0.0.1:8080",
      });
      const consumer = await flaky.startConsuming();
      stops.unshift(() => consumer.stop());
      const flakyAddress = await serve(flaky.grpc);

      const webhooks = await WebhooksApp.start({
        nats: await connection(),
        store: await store("webhooks"),
        logger,
        settings: {
          WEBHOOKS_ALLOW_LOOPBACK: true,
          WEBHOOKS_ALLOWED_CIDRS: [],
          WEBHOOKS_RETRY_SCHEDULE_MS: [1000],
          WEBHOOKS_RETRY_JITTER: 0,
          WEBHOOKS_DELIVERY_TIMEOUT_MS: 5000,
          WEBHOOKS_ACK_WAIT_MS: 30_000,
          WEBHOOKS_RECONCILE_INTERVAL_MS: 1000,
        },
        ...(options.github?.app
          ? {
              github: {
                client: new GitHubAppClient({
                  settings: {
                    appId: options.github.app.credentials.appId,
                    privateKey: options.github.app.credentials.privateKey,
                    webhookSecret: undefined,
                    apiUrl: options.github.app.apiUrl,
                  },
                  logger,
                  writeSpacingMs: 0,
                  notificationSpacingMs: 0,
                  retryUnitMs: 10,
                  maxInlineWaitMs: 0,
                }),
                coordinator: createGrpcClient(QueueCoordinatorClient, coordinator.address),
                publicUrl: "https://mainline.example.com",
                leaseMs: 1_500,
                maxAttempts: 10,
                retryMs: 200,
                pollMs: 200,
              },
            }
          : {}),
      });
      stops.unshift(() => webhooks.stop());
      const webhooksAddress = await serve(webhooks.grpc);

      const gateway = await GatewayHarness.start(
        {
          queue: coordinator.address,
          flaky: flakyAddress,
          webhooks: webhooksAddress,
        },
        options.github
          ? {
              github: {
                webhookSecret: options.github.webhookSecret,
                ...(options.github.app ? { replies: "webhooks-service" as const } : {}),
              },
            }
          : {},
      );
      stops.unshift(() => gateway.stop());
      const token = await gateway.organization("acme");
      await gateway.auth.createOrganization("root", "root");
      const adminToken = (await gateway.auth.createToken("root", "admin", true)).token;
      return new MainlineFixture(gateway, token, adminToken, stops, coordinatorControl);
    } catch (error) {
      for (const stop of stops) await stop().catch(() => undefined);
      throw error;
    }
  }

  /** The gateway's address as a user would export it in MAINLINE_URL (without /v1). */
  get baseUrl(): string {
    return this.gateway.url.replace(/\/v1$/, "");
  }

  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MAINLINE_URL: this.baseUrl,
      MAINLINE_TOKEN: this.token,
      ...extra,
    };
  }

  /** Runs one `mainline` command line in process, as the bin would, and returns what it printed. */
  async run(
    argv: readonly string[],
    options: { env?: Record<string, string | undefined>; cwd?: string; tty?: boolean } = {},
  ): Promise<CliRun> {
    const stdout = new CapturedSink(options.tty);
    const stderr = new CapturedSink(options.tty);
    const io: CliIo = {
      stdout,
      stderr,
      env: options.env ?? this.env(),
      cwd: options.cwd ?? process.cwd(),
      childStdio: "pipe",
    };
    const code = await runCli(argv, io);
    return { code, stdout: stdout.text, stderr: stderr.text };
  }

  post(route: string, body: unknown, token = this.token): Promise<Response> {
    return this.gateway.post(route, body, token);
  }

  async stop(): Promise<void> {
    for (const stop of this.stops) await stop().catch(() => undefined);
  }
}
