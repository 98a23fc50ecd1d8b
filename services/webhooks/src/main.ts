import type { NatsConnection } from "nats";
import type { ConsumerHandle, Replication } from "@mainline/kit/bus/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { Store } from "@mainline/kit/store/index";
import { provisionMainlineStreams } from "@mainline/kit/streams/index";
import { WebhooksService } from "@mainline/proto/webhooks";
import { toGrpcImplementation, type GrpcService } from "@mainline/kit/grpc/index";
import { webhooksApi } from "./api/webhooks-api.js";
import { provisionDeliveryStream } from "./bus/delivery-stream.js";
import { provisionFanoutConsumer, startEventFanout } from "./bus/event-fanout.js";
import type { Config } from "./config.js";
import { retrySchedule } from "./domain/retry-schedule.js";
import { DeliveryWorker } from "./delivery/delivery-worker.js";
import { HttpSender } from "./delivery/http-sender.js";
import { SubscriptionConsumers } from "./delivery/subscription-consumers.js";
import { UrlGuard } from "./delivery/url-guard.js";
import { GitHubCallSender } from "./github/github-call-sender.js";
import { GitHubOutboxLoop } from "./github/github-outbox-loop.js";
import { provisionTalkBackConsumer, startPullRequestTalkBack } from "./github/pull-request-talk-back.js";
import { QueueFacts } from "./github/queue-facts.js";
import { DeliveryLog } from "./store/delivery-log.js";
import { GitHubOutbox } from "./store/github-outbox.js";
import { SubscriptionRepository } from "./store/subscription-repository.js";
import { GitHubAppClient, gitHubAppSettings } from "@mainline/kit/github/index";
import { createGrpcClient } from "@mainline/kit/grpc/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { isEntryPoint, serveGrpc, startService } from "@mainline/kit/service/index";
import { configSchema } from "./config.js";

// What the NATS permissions name (tools/src/dev/service-permissions.ts): the stream this service owns.
export { DELIVERY_STREAM } from "./bus/delivery-stream.js";

export type WebhooksSettings = Pick<
  Config,
  | "WEBHOOKS_ALLOW_LOOPBACK"
  | "WEBHOOKS_ALLOWED_CIDRS"
  | "WEBHOOKS_RETRY_SCHEDULE_MS"
  | "WEBHOOKS_RETRY_JITTER"
  | "WEBHOOKS_DELIVERY_TIMEOUT_MS"
  | "WEBHOOKS_ACK_WAIT_MS"
  | "WEBHOOKS_RECONCILE_INTERVAL_MS"
>;

/** Talking back to GitHub: on when the deployment has a GitHub App. */
export interface GitHubTalkBackSettings {
  client: GitHubAppClient;
  coordinator: QueueCoordinatorClient;
  publicUrl: string;
  leaseMs: number;
  maxAttempts: number;
  retryMs: number;
  /** Longest sleep of the outbox loop between looks (writes wake it at once). */
  pollMs?: number;
}

/**
 * The webhooks service without its process shell: the entry point below serves `grpc` and wires `stop` into the
 * shutdown order; tests run it in process and `kill` it to play a crash.
 */
export class WebhooksApp {
  private constructor(
    readonly grpc: GrpcService,
    private readonly fanout: ConsumerHandle,
    private readonly consumers: SubscriptionConsumers,
    private readonly reconcileTimer: NodeJS.Timeout,
    private readonly abort: AbortController,
    private readonly talkBack: { consumer: ConsumerHandle; loop: GitHubOutboxLoop } | undefined,
  ) {}

  static async start(options: {
    nats: NatsConnection;
    store: Store;
    logger: Logger;
    settings: WebhooksSettings;
    /** NATS_REPLICAS: copies of the streams, buckets and object stores it creates (or raises); one when omitted. */
    replication?: Replication | undefined;
    github?: GitHubTalkBackSettings;
  }): Promise<WebhooksApp> {
    const { nats, store, logger, settings, github } = options;
    const jsm = await nats.jetstreamManager();
    const js = nats.jetstream();
    await provisionMainlineStreams(jsm, options.replication);
    await provisionDeliveryStream(jsm, options.replication);
    await provisionFanoutConsumer(jsm, settings.WEBHOOKS_ACK_WAIT_MS);

    const subscriptions = await SubscriptionRepository.open(store);
    const log = await DeliveryLog.open(store);
    const guard = new UrlGuard({
      allowLoopback: settings.WEBHOOKS_ALLOW_LOOPBACK,
      allowedCidrs: settings.WEBHOOKS_ALLOWED_CIDRS,
    });
    const abort = new AbortController();
    const consumers: SubscriptionConsumers = new SubscriptionConsumers({
      js,
      jsm,
      worker: () => worker,
      ackWaitMs: settings.WEBHOOKS_ACK_WAIT_MS,
      logger,
    });
    const worker = new DeliveryWorker({
      subscriptions,
      log,
      sender: new HttpSender(guard, settings.WEBHOOKS_DELIVERY_TIMEOUT_MS, abort.signal),
      schedule: retrySchedule(settings.WEBHOOKS_RETRY_SCHEDULE_MS, settings.WEBHOOKS_RETRY_JITTER),
      logger,
      onDisabled: (id) => void consumers.stop(id),
    });

    const reconcile = async () => consumers.reconcile(await subscriptions.all());
    await reconcile();
    const reconcileTimer = setInterval(() => {
      reconcile().catch((error: unknown) => logger.warn({ err: error }, "webhook consumers not reconciled"));
    }, settings.WEBHOOKS_RECONCILE_INTERVAL_MS);
    reconcileTimer.unref();
    const fanout = await startEventFanout({ js, subscriptions, logger });

    let githubOutbox: GitHubOutbox | undefined;
    let talkBack: { consumer: ConsumerHandle; loop: GitHubOutboxLoop } | undefined;
    if (github) {
      githubOutbox = await GitHubOutbox.open(store);
      const facts = new QueueFacts(github.coordinator);
      await provisionTalkBackConsumer(jsm, settings.WEBHOOKS_ACK_WAIT_MS);
      const loop = new GitHubOutboxLoop({
        outbox: githubOutbox,
        sender: new GitHubCallSender(github.client, facts),
        logger,
        leaseMs: github.leaseMs,
        maxAttempts: github.maxAttempts,
        retryMs: github.retryMs,
        pollMs: github.pollMs ?? 2_000,
      });
      loop.start();
      const consumer = await startPullRequestTalkBack({
        js,
        outbox: githubOutbox,
        facts,
        logger,
        publicUrl: github.publicUrl,
      });
      talkBack = { consumer, loop };
    }

    const api = webhooksApi({ subscriptions, log, guard, consumers, js, jsm, githubOutbox });
    const grpc = { definition: WebhooksService, implementation: toGrpcImplementation(api, logger) };
    return new WebhooksApp(grpc, fanout, consumers, reconcileTimer, abort, talkBack);
  }

  /** Graceful: stop taking events and jobs, let attempts in flight finish and be acked. */
  async stop(): Promise<void> {
    clearInterval(this.reconcileTimer);
    await Promise.all([
      this.fanout.stop(),
      this.consumers.stopAll(),
      this.talkBack?.consumer.stop(),
      this.talkBack?.loop.stop(),
    ]);
  }

  /**
   * A crash, for tests: attempts in flight are cut off and nothing more is acked. The caller then closes
   * the NATS connection without draining; JetStream hands the unacked jobs to the next instance.
   */
  kill(): void {
    clearInterval(this.reconcileTimer);
    this.abort.abort();
    this.talkBack?.loop.kill();
  }
}

// Started by node (make dev, the image); imported for the wiring above by tests and tools.
if (isEntryPoint(import.meta.url)) {
  startService("webhooks", configSchema, async (runtime, config) => {
    const gitHubApp = gitHubAppSettings(config);
    const app = await WebhooksApp.start({
      nats: runtime.nats,
      replication: runtime.replication,
      store: runtime.store,
      logger: runtime.logger,
      settings: config,
      ...(gitHubApp && {
        github: {
          client: new GitHubAppClient({ settings: gitHubApp, logger: runtime.logger }),
          coordinator: createGrpcClient(QueueCoordinatorClient, config.QUEUE_COORDINATOR_ADDR),
          publicUrl: config.MAINLINE_PUBLIC_URL,
          leaseMs: config.GITHUB_CALL_LEASE_MS,
          maxAttempts: config.GITHUB_CALL_MAX_ATTEMPTS,
          retryMs: config.GITHUB_CALL_RETRY_MS,
        },
      }),
    });
    // Stopping the consumers waits for attempts in flight, so they are logged and acked before NATS drains.
    runtime.shutdown.on("stop-consuming", "webhook deliveries", () => app.stop());
    await serveGrpc(runtime, { port: config.GRPC_PORT, services: [app.grpc] });
  });
}
