import { randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { freePort } from "@mainline/testing";
import { publish } from "@mainline/kit/bus/index";
import {
  callUnary,
  createGrpcClient,
  startGrpcServer,
  type GrpcServerHandle,
} from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { TestStatus, TestStatusChanged } from "@mainline/proto/flaky";
import { MetricsClient } from "@mainline/proto/metrics";
import { QueueCoordinatorClient } from "@mainline/proto/queue";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";
import { MetricsApp, type MetricsSettings } from "../../src/main.js";
import { checkExposition, type Exposition } from "./exposition.js";

const SETTINGS: MetricsSettings = {
  // Tests re-derive with syncNow() when they mean to; the loop's own round is out of the way.
  METRICS_RECONCILE_INTERVAL_MS: 600_000,
  // A crashed instance's unacked event is handed to the next one after this.
  METRICS_ACK_WAIT_MS: 1_000,
};

interface MetricsInstance {
  nc: NatsConnection;
  store: Store;
  app: MetricsApp;
  server: GrpcServerHandle;
}

/** Time the coordinator and the metrics service share, moved by the test. */
export class VirtualClock {
  constructor(private ms: number) {}
  now = (): number => this.ms;
  advance(minutes: number): void {
    this.ms += minutes * 60_000;
  }
}

/**
 * A real queue-coordinator, the metrics service and a gateway, in process on one real nats-server. The metrics
 * service keeps its gRPC port across restarts, so the gateway reaches every instance at one address.
 */
export class MetricsSystem {
  private instance: MetricsInstance | undefined;
  /** Replicas besides the one behind the gateway, each on its own gRPC port, sharing the store and the consumer. */
  private readonly replicas = new Map<string, MetricsInstance & { client: MetricsClient }>();

  private constructor(
    readonly clock: VirtualClock,
    readonly coordinator: CoordinatorHarness,
    readonly gateway: GatewayHarness,
    private readonly coordinatorClient: QueueCoordinatorClient,
    private readonly metricsPort: number,
  ) {}

  static async start(): Promise<MetricsSystem> {
    const clock = new VirtualClock(Date.now());
    const coordinator = await CoordinatorHarness.start({ clock: () => new Date(clock.now()) });
    const metricsPort = await freePort();
    const gateway = await GatewayHarness.start({
      queue: coordinator.address,
      metrics: `127.0.0.1:${metricsPort}`,
    });
    const client = createGrpcClient(QueueCoordinatorClient, coordinator.address);
    const system = new MetricsSystem(clock, coordinator, gateway, client, metricsPort);
    await system.startMetrics();
    return system;
  }

  get metricsAddress(): string {
    return `127.0.0.1:${this.metricsPort}`;
  }

  get metrics(): MetricsApp {
    if (!this.instance) throw new Error("the metrics service is not running");
    return this.instance.app;
  }

  /** A metrics instance on the shared NATS; `database` other than the default starts from an empty store. */
  async startMetrics(options: { database?: string } = {}): Promise<MetricsApp> {
    this.instance = await this.startInstance(this.metricsPort, options.database);
    await this.instance.app.synced;
    return this.instance.app;
  }

  /** Another replica of the metrics service, on its own port, sharing the store and the durable consumer. */
  async startReplica(name: string): Promise<void> {
    const port = await freePort();
    const instance = await this.startInstance(port);
    const client = createGrpcClient(MetricsClient, `127.0.0.1:${port}`);
    this.replicas.set(name, { ...instance, client });
    await instance.app.synced;
  }

  /** The replica's exposition for the organisation, asked directly over gRPC (not through the gateway). */
  async scrapeReplica(name: string, org: string): Promise<string> {
    const replica = this.replicas.get(name);
    if (!replica) throw new Error(`no metrics replica ${name}`);
    const { text } = await callUnary(replica.client.getMergeQueueMetrics.bind(replica.client), { org });
    return text;
  }

  private async startInstance(port: number, database = "mainline-metrics"): Promise<MetricsInstance> {
    const nc = await connect(this.coordinator.nats.connectOptions());
    const store = await openStore({ database, nats: nc });
    const app = await MetricsApp.start({
      nats: nc,
      store,
      logger: createLogger("metrics-test", process.env.TEST_LOG_LEVEL ?? "silent"),
      coordinator: this.coordinatorClient,
      settings: SETTINGS,
      clock: this.clock.now,
    });
    const server = await startGrpcServer({ host: "127.0.0.1", port, services: [app.grpc] });
    server.setServing(true);
    return { nc, store, app, server };
  }

  /** Dies without draining: the event in hand is never acked and goes to the next instance. */
  async crashMetrics(): Promise<void> {
    const { app, nc, server } = this.running;
    app.kill();
    await nc.close();
    await server.shutdown(0);
    this.instance = undefined;
  }

  async stopMetrics(): Promise<void> {
    const { app, nc, server, store } = this.running;
    await app.stop();
    await server.shutdown(0);
    await store.close();
    await nc.close();
    this.instance = undefined;
  }

  /** Waits until the metrics service has applied every event published so far. */
  async settled(): Promise<void> {
    if (!(await this.metrics.caughtUp(10_000)))
      throw new Error("the metrics service did not catch up in 10 s");
  }

  /** Publishes flaky-analytics' event for a test's new status, as it would on the events stream. */
  async publishTestStatus(
    org: string,
    repo: { host: string; owner: string; name: string },
    testId: string,
    status: TestStatus,
  ): Promise<void> {
    const event: TestStatusChanged = {
      eventId: `test-status-${randomUUID()}`,
      org,
      repo,
      testId,
      name: testId,
      variant: "",
      oldStatus: TestStatus.UNSPECIFIED,
      newStatus: status,
      reason: "test",
      timestamp: new Date(this.clock.now()),
      quarantined: false,
      htmlUrl: "",
      codeowners: [],
    };
    await publish(this.coordinator.nc.jetstream(), SUBJECTS.testStatusEvent, TestStatusChanged, event, {
      msgId: event.eventId,
    });
  }

  async call(path: string, body: unknown, token: string): Promise<{ status: number; body: unknown }> {
    const response = await this.gateway.post(path, body, token);
    const text = await response.text();
    const json = response.headers.get("content-type")?.includes("json");
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text}`);
    return { status: response.status, body: json ? (JSON.parse(text) as unknown) : text };
  }

  async scrapeRaw(token: string | undefined, query = ""): Promise<Response> {
    return fetch(`${this.gateway.url}/getMergeQueueMetrics${query}`, {
      headers: token === undefined ? {} : { "x-api-token": token },
    });
  }

  /** Scrapes through the gateway once every event is applied, and checks the text with a real parser. */
  async scrape(token: string, query = ""): Promise<Exposition> {
    await this.settled();
    const response = await this.scrapeRaw(token, query);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`scrape answered ${response.status}: ${text}`);
    return checkExposition(text);
  }

  async stop(): Promise<void> {
    for (const { app, server, store, nc, client } of this.replicas.values()) {
      client.close();
      await app.stop();
      await server.shutdown(0);
      await store.close();
      await nc.close();
    }
    this.replicas.clear();
    if (this.instance) await this.stopMetrics();
    this.coordinatorClient.close();
    await this.gateway.stop();
    await this.coordinator.stop();
    await this.coordinator.nats.stop();
  }

  private get running(): MetricsInstance {
    if (!this.instance) throw new Error("the metrics service is not running");
    return this.instance;
  }
}
