import type { NatsConnection } from "nats";
import type { ConsumerHandle, Replication } from "@mainline/kit/bus/index";
import type { GrpcService } from "@mainline/kit/grpc/index";
import { toGrpcImplementation } from "@mainline/kit/grpc/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { Store } from "@mainline/kit/store/index";
import { provisionMainlineStreams } from "@mainline/kit/streams/index";
import { FlakyAnalyticsService } from "@mainline/proto/flaky";
import type { FlakyAnalyticsServer } from "@mainline/proto/flaky";
import { flakyAnalyticsHandlers } from "./api/flaky-analytics-handlers.js";
import { statusEventPublisher } from "./bus/status-event-publisher.js";
import { consumeTestResults } from "./bus/test-results-consumer.js";
import { openFlakyStore } from "./store/flaky-store.js";
import { FlakyAnalytics } from "./app/flaky-analytics.js";
import type { SnapshotPolicy } from "./app/test-indexes.js";
import { isEntryPoint, serveGrpc, startService } from "@mainline/kit/service/index";
import { configSchema, DEV_PAGE_TOKEN_KEY } from "./config.js";

export type { FlakyAnalytics } from "./app/flaky-analytics.js";

export interface FlakyServiceOptions {
  nats: NatsConnection;
  store: Store;
  logger: Logger;
  pageTokenKey: string;
  publicBaseUrl: string;
  now?: () => number;
  snapshotPolicy?: SnapshotPolicy;
  /** NATS_REPLICAS: copies of the streams, buckets and object stores it creates (or raises); one when omitted. */
  replication?: Replication | undefined;
}

export interface FlakyService {
  app: FlakyAnalytics;
  grpc: GrpcService;
  /** Starts the JetStream consumer of test results and republishes pending status changes. */
  startConsuming(): Promise<ConsumerHandle>;
}

/** Wires the flaky-analytics service: streams, store, use cases, gRPC handlers and the consumer. */
export async function createFlakyService(options: FlakyServiceOptions): Promise<FlakyService> {
  const jsm = await options.nats.jetstreamManager();
  await provisionMainlineStreams(jsm, options.replication);
  const js = options.nats.jetstream();
  const app = new FlakyAnalytics({
    store: await openFlakyStore(options.store),
    publishStatusChange: statusEventPublisher(js),
    logger: options.logger,
    pageTokenKey: options.pageTokenKey,
    publicBaseUrl: options.publicBaseUrl,
    ...(options.now ? { now: options.now } : {}),
    ...(options.snapshotPolicy ? { snapshotPolicy: options.snapshotPolicy } : {}),
  });
  return {
    app,
    grpc: {
      definition: FlakyAnalyticsService,
      implementation: toGrpcImplementation<FlakyAnalyticsServer>(flakyAnalyticsHandlers(app), options.logger),
    },
    async startConsuming() {
      await app.outbox.sweep();
      return consumeTestResults(jsm, js, app, options.logger);
    },
  };
}

// Started by node (make dev, the image); imported for the wiring above by tests and tools.
if (isEntryPoint(import.meta.url)) {
  startService("flaky-analytics", configSchema, async (runtime, config) => {
    if (config.FLAKY_PAGE_TOKEN_KEY === DEV_PAGE_TOKEN_KEY) {
      runtime.logger.warn("FLAKY_PAGE_TOKEN_KEY is the development default; set a secret in production");
    }
    const service = await createFlakyService({
      nats: runtime.nats,
      replication: runtime.replication,
      store: runtime.store,
      logger: runtime.logger,
      pageTokenKey: config.FLAKY_PAGE_TOKEN_KEY,
      publicBaseUrl: config.MAINLINE_PUBLIC_URL,
    });
    const consumer = await service.startConsuming();
    runtime.shutdown.on("stop-consuming", "test-results consumer", () => consumer.stop());
    runtime.shutdown.on("finish-in-flight", "ingest", async () => {
      service.app.outbox.stop();
      await service.app.idle();
    });
    await serveGrpc(runtime, { port: config.GRPC_PORT, services: [service.grpc] });
  });
}
