import type { NatsConnection } from "nats";
import type { ConsumerHandle } from "@mainline/kit/bus/index";
import type { GrpcService } from "@mainline/kit/grpc/index";
import { toGrpcImplementation } from "@mainline/kit/grpc/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { Store } from "@mainline/kit/store/index";
import { provisionMainlineStreams } from "@mainline/kit/streams/index";
import { FlakyAnalyticsService } from "@mainline/proto/flaky";
import type { FlakyAnalyticsServer } from "@mainline/proto/flaky";
import { flakyAnalyticsHandlers } from "../api/flaky-analytics-handlers.js";
import { statusEventPublisher } from "../bus/status-event-publisher.js";
import { consumeTestResults } from "../bus/test-results-consumer.js";
import { openFlakyStore } from "../store/flaky-store.js";
import { FlakyAnalytics } from "./flaky-analytics.js";
import type { SnapshotPolicy } from "./test-indexes.js";

export interface FlakyServiceOptions {
  nats: NatsConnection;
  store: Store;
  logger: Logger;
  pageTokenKey: string;
  publicBaseUrl: string;
  now?: () => number;
  snapshotPolicy?: SnapshotPolicy;
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
  await provisionMainlineStreams(jsm);
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
