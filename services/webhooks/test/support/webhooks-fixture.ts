import { randomBytes, randomUUID } from "node:crypto";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import { publish } from "@mainline/kit/bus/index";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { createGrpcClient, startGrpcServer, type GrpcServerHandle } from "@mainline/kit/grpc/index";
import {
  BatchEventType,
  BatchLifecycleEvent,
  PullRequestEventType,
  PullRequestLifecycleEvent,
  PullRequestState,
  TestRunEventType,
  TestRunLifecycleEvent,
} from "@mainline/proto/queue";
import { WebhooksClient } from "@mainline/proto/webhooks";
import { WebhooksApp, type WebhooksSettings } from "../../src/main.js";

export const TEST_SETTINGS: WebhooksSettings = {
  WEBHOOKS_ALLOW_LOOPBACK: true,
  WEBHOOKS_ALLOWED_CIDRS: [],
  WEBHOOKS_RETRY_SCHEDULE_MS: [100, 100, 100],
  WEBHOOKS_RETRY_JITTER: 0,
  WEBHOOKS_DELIVERY_TIMEOUT_MS: 2_000,
  WEBHOOKS_ACK_WAIT_MS: 1_000,
  WEBHOOKS_RECONCILE_INTERVAL_MS: 60_000,
};

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

interface Instance {
  nc: NatsConnection;
  store: Store;
  app: WebhooksApp;
  server: GrpcServerHandle;
}

/**
 * The webhooks service in process on a real nats-server and embedded store, called through its real
 * gRPC server. `crash()` kills the instance abruptly; `start()` brings up a new one on the same data.
 */
export class WebhooksFixture {
  /** Replicas sharing the nats-server and the store; the last one started serves `api`. */
  private readonly instances: Instance[] = [];
  private client: WebhooksClient | undefined;
  private publisher: NatsConnection | undefined;

  private constructor(
    readonly nats: NatsServer,
    private readonly settings: WebhooksSettings,
  ) {}

  static async start(settings: Partial<WebhooksSettings> = {}): Promise<WebhooksFixture> {
    const fixture = new WebhooksFixture(await NatsServer.start(), { ...TEST_SETTINGS, ...settings });
    await fixture.startInstance();
    fixture.publisher = await connect(fixture.nats.connectOptions());
    return fixture;
  }

  get grpcAddress(): string {
    return `127.0.0.1:${this.running.server.port}`;
  }

  get api(): WebhooksClient {
    this.client ??= createGrpcClient(WebhooksClient, this.grpcAddress);
    return this.client;
  }

  /** A client of one replica's gRPC server (index in start order); the caller closes it. */
  clientOf(replica: number): WebhooksClient {
    const instance = this.instances[replica];
    if (!instance) throw new Error(`no webhooks replica ${replica} is running`);
    return createGrpcClient(WebhooksClient, `127.0.0.1:${instance.server.port}`);
  }

  /** How many replicas run now. */
  get replicas(): number {
    return this.instances.length;
  }

  /** A new instance (another replica) on the same nats-server and store, optionally with other settings. */
  async startInstance(overrides: Partial<WebhooksSettings> = {}): Promise<void> {
    const nc = await connect(this.nats.connectOptions());
    const store = await openStore({ database: "mainline-webhooks", nats: nc });
    const logger = createLogger("webhooks-test", "silent");
    const settings = { ...this.settings, ...overrides };
    const app = await WebhooksApp.start({ nats: nc, store, logger, settings });
    const server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [app.grpc] });
    server.setServing(true);
    this.instances.push({ nc, store, app, server });
    this.client?.close();
    this.client = undefined;
  }

  /**
   * Cuts attempts in flight and the NATS connection without draining: nothing more is acked. `replica` is the
   * index in start order among those still running; by default the last one started.
   */
  async crash(replica = this.instances.length - 1): Promise<void> {
    const [instance] = this.instances.splice(replica, 1);
    if (!instance) throw new Error(`no webhooks replica ${replica} is running`);
    const { app, nc, server } = instance;
    app.kill();
    await nc.close();
    await server.shutdown(0);
    this.client?.close();
    this.client = undefined;
  }

  /** A replica's store, to read what the service wrote (the delivery log) as another replica would. */
  store(replica = 0): Store {
    const instance = this.instances[replica];
    if (!instance) throw new Error(`no webhooks replica ${replica} is running`);
    return instance.store;
  }

  async publishPullRequestEvent(fields: Partial<PullRequestLifecycleEvent>): Promise<string> {
    const event: PullRequestLifecycleEvent = {
      eventId: `pr-${randomUUID()}`,
      type: PullRequestEventType.QUEUED,
      timestamp: new Date(),
      org: "acme",
      repository: { host: "github.com", owner: "acme", name: "widgets" },
      targetBranch: "main",
      prNumber: 1,
      status: PullRequestState.PENDING,
      previousStatus: PullRequestState.NOT_READY,
      batched: false,
      isBisection: false,
      testBranch: "",
      testBranchSha: "",
      ...fields,
    };
    await publish(this.publisher!.jetstream(), SUBJECTS.pullRequestEvent, PullRequestLifecycleEvent, event, {
      msgId: event.eventId,
    });
    return event.eventId;
  }

  async publishTestRunEvent(fields: Partial<TestRunLifecycleEvent>): Promise<string> {
    const event = TestRunLifecycleEvent.fromPartial({
      eventId: `test-run-${randomUUID()}`,
      type: TestRunEventType.CANCELLED,
      timestamp: new Date(),
      queue: {
        org: "acme",
        repo: { host: "github.com", owner: "acme", name: "widgets" },
        targetBranch: "main",
      },
      ...fields,
    });
    await publish(this.publisher!.jetstream(), SUBJECTS.testRunEvent, TestRunLifecycleEvent, event, {
      msgId: event.eventId,
    });
    return event.eventId;
  }

  async publishBatchEvent(fields: Partial<BatchLifecycleEvent>): Promise<string> {
    const event: BatchLifecycleEvent = {
      eventId: `batch-${randomUUID()}`,
      type: BatchEventType.PENDING_FAILURE,
      timestamp: new Date(),
      org: "acme",
      repository: { host: "github.com", owner: "acme", name: "widgets" },
      targetBranch: "main",
      prNumbers: [],
      ...fields,
    };
    await publish(this.publisher!.jetstream(), SUBJECTS.batchEvent, BatchLifecycleEvent, event, {
      msgId: event.eventId,
    });
    return event.eventId;
  }

  async stop(): Promise<void> {
    this.client?.close();
    for (const instance of this.instances.splice(0)) {
      await instance.app.stop();
      await instance.server.shutdown(0);
      await instance.store.close();
      await instance.nc.close();
    }
    await this.publisher?.close();
    await this.nats.stop();
  }

  private get running(): Instance {
    const instance = this.instances.at(-1);
    if (!instance) throw new Error("no webhooks instance is running");
    return instance;
  }
}
