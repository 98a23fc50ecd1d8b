import { setTimeout as sleep } from "node:timers/promises";
import type { JetStreamManager, NatsConnection } from "nats";
import type { ConsumerHandle, Replication } from "@mainline/kit/bus/index";
import { toGrpcImplementation, type GrpcService } from "@mainline/kit/grpc/index";
import type { Logger } from "@mainline/kit/logging/index";
import type { Store } from "@mainline/kit/store/index";
import { provisionMainlineStreams, STREAMS } from "@mainline/kit/streams/index";
import { MetricsService } from "@mainline/proto/metrics";
import { metricsApi } from "./api/metrics-api.js";
import { fetchCoordinatorSnapshot } from "./app/coordinator-snapshots.js";
import { MetricsState } from "./app/metrics-state.js";
import {
  LIFECYCLE_DURABLE,
  provisionLifecycleConsumer,
  startLifecycleConsumer,
} from "./bus/lifecycle-consumer.js";
import type { Config } from "./config.js";
import type { ReconcilePlan } from "./domain/coordinator-snapshot.js";
import { ActiveRunStore } from "./store/active-run-store.js";
import { ObservationStore } from "./store/observation-store.js";
import { TestStatusStore } from "./store/test-status-store.js";
import { TimelineStore } from "./store/timeline-store.js";
import { createGrpcClient } from "@mainline/kit/grpc/index";
import { isEntryPoint, serveGrpc, startService } from "@mainline/kit/service/index";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { configSchema } from "./config.js";

export type MetricsSettings = Pick<Config, "METRICS_RECONCILE_INTERVAL_MS" | "METRICS_ACK_WAIT_MS">;

/** How long the first re-derivation waits for the backlog of events to be applied before it goes ahead. */
const CATCH_UP_LIMIT_MS = 30_000;
const FIRST_SYNC_RETRY_MS = 2_000;
const FIRST_SYNC_QUIET_ATTEMPTS = 5;

/**
 * The metrics service without its process shell: the entry point below serves `grpc` and wires `stop` into the shutdown
 * order; tests run it in process and `kill` it to play a crash.
 *
 * On start it loads what the last process stored (timelines, runs in progress, the last hour's observations),
 * resumes its durable consumer, and once the backlog is applied re-derives the gauges from the coordinator;
 * then again every METRICS_RECONCILE_INTERVAL_MS, which also drops observations older than the window.
 */
export class MetricsApp {
  /** Settles after the first re-derivation from the coordinator (or when the app stops before one). */
  readonly synced: Promise<void>;
  private readonly loop: Promise<void>;

  private constructor(
    readonly grpc: GrpcService,
    private readonly state: MetricsState,
    private readonly consumer: ConsumerHandle,
    private readonly jsm: JetStreamManager,
    private readonly coordinator: QueueCoordinatorClient,
    private readonly settings: MetricsSettings,
    private readonly clock: () => number,
    private readonly logger: Logger,
    private readonly abort: AbortController,
  ) {
    let markSynced: () => void = () => undefined;
    this.synced = new Promise((resolve) => (markSynced = resolve));
    this.loop = this.keepInSync(markSynced).finally(markSynced);
  }

  static async start(options: {
    nats: NatsConnection;
    store: Store;
    logger: Logger;
    coordinator: QueueCoordinatorClient;
    settings: MetricsSettings;
    clock?: () => number;
    /** NATS_REPLICAS: copies of the streams, buckets and object stores it creates (or raises); one when omitted. */
    replication?: Replication | undefined;
  }): Promise<MetricsApp> {
    const { nats, store, logger, settings } = options;
    const clock = options.clock ?? Date.now;
    const jsm = await nats.jetstreamManager();
    await provisionMainlineStreams(jsm, options.replication);
    await provisionLifecycleConsumer(jsm, settings.METRICS_ACK_WAIT_MS);
    const state = await MetricsState.load(
      {
        timelines: TimelineStore.open(store),
        runs: ActiveRunStore.open(store),
        observations: await ObservationStore.open(store),
        tests: TestStatusStore.open(store),
      },
      clock(),
    );
    const consumer = await startLifecycleConsumer({ js: nats.jetstream(), state, clock, logger });
    const grpc = {
      definition: MetricsService,
      implementation: toGrpcImplementation(metricsApi({ state, clock }), logger),
    };
    return new MetricsApp(
      grpc,
      state,
      consumer,
      jsm,
      options.coordinator,
      settings,
      clock,
      logger,
      new AbortController(),
    );
  }

  /** Re-derives the gauges from the coordinator now and drops expired observations. */
  async syncNow(): Promise<ReconcilePlan> {
    const plan = await this.state.reconcile(() => fetchCoordinatorSnapshot(this.coordinator));
    await this.state.prune(this.clock());
    const corrected =
      plan.putTimelines.length + plan.dropTimelines.length + plan.putRuns.length + plan.dropRuns.length;
    if (corrected > 0)
      this.logger.info({ ...countsOf(plan) }, "gauges corrected from the coordinator's state");
    return plan;
  }

  /** Resolves once the durable consumer has nothing pending: every event published so far is applied. */
  async caughtUp(limitMs: number): Promise<boolean> {
    const deadline = Date.now() + limitMs;
    while (!this.abort.signal.aborted) {
      const info = await this.jsm.consumers.info(STREAMS.events.name, LIFECYCLE_DURABLE);
      if (info.num_pending === 0 && info.num_ack_pending === 0) return true;
      if (Date.now() > deadline) return false;
      await sleep(100, undefined, { signal: this.abort.signal }).catch(() => undefined);
    }
    return false;
  }

  /** Graceful: the sync loop ends and the event in hand is applied and acked. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.consumer.stop();
  }

  /** A crash, for tests: nothing more is synced; the caller closes the NATS connection without draining. */
  kill(): void {
    this.abort.abort();
  }

  private async keepInSync(markSynced: () => void): Promise<void> {
    const { signal } = this.abort;
    try {
      // Re-deriving before the backlog is applied would be undone by it for a while: wait, within reason.
      if (!(await this.caughtUp(CATCH_UP_LIMIT_MS)) && !signal.aborted) {
        this.logger.warn("lifecycle backlog not applied yet; re-deriving the gauges anyway");
      }
      let synced = false;
      let failures = 0;
      while (!signal.aborted) {
        try {
          await this.syncNow();
          if (!synced) markSynced();
          synced = true;
          failures = 0;
        } catch (error) {
          if (signal.aborted) return;
          // Services start together: a coordinator not up yet is expected for a few rounds, not worth a warning.
          const level = synced || ++failures > FIRST_SYNC_QUIET_ATTEMPTS ? "warn" : "info";
          this.logger[level]({ err: error }, "gauges not re-derived from the queue-coordinator; will retry");
        }
        await sleep(synced ? this.settings.METRICS_RECONCILE_INTERVAL_MS : FIRST_SYNC_RETRY_MS, undefined, {
          signal,
        });
      }
    } catch (error) {
      if (!signal.aborted) this.logger.error({ err: error }, "metrics sync loop stopped");
    }
  }
}

function countsOf(plan: ReconcilePlan) {
  return {
    timelinesSet: plan.putTimelines.length,
    timelinesDropped: plan.dropTimelines.length,
    runsSet: plan.putRuns.length,
    runsDropped: plan.dropRuns.length,
  };
}

// Started by node (make dev, the image); imported for the wiring above by tests and tools.
if (isEntryPoint(import.meta.url)) {
  startService("metrics", configSchema, async (runtime, config) => {
    const coordinator = createGrpcClient(QueueCoordinatorClient, config.QUEUE_COORDINATOR_ADDR);
    const app = await MetricsApp.start({
      nats: runtime.nats,
      replication: runtime.replication,
      store: runtime.store,
      logger: runtime.logger,
      coordinator,
      settings: config,
    });
    // The event in hand is applied and acked before NATS drains; the coordinator is asked nothing after.
    runtime.shutdown.on("stop-consuming", "lifecycle events", async () => {
      await app.stop();
      coordinator.close();
    });
    await serveGrpc(runtime, { port: config.GRPC_PORT, services: [app.grpc] });
  });
}
