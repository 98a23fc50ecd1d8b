import { readFileSync } from "node:fs";
import { connect, type NatsConnection } from "nats";
import { NatsServer } from "@mainline/testing";
import type { ConsumerHandle } from "@mainline/kit/bus/index";
import {
  callUnary,
  createGrpcClient,
  startGrpcServer,
  type GrpcServerHandle,
} from "@mainline/kit/grpc/index";
import { createLogger } from "@mainline/kit/logging/index";
import { openStore, type Store } from "@mainline/kit/store/index";
import { FlakyAnalyticsClient, ResultContext } from "@mainline/proto/flaky";
import type {
  ListFailingTestsRequest,
  ListFailingTestsResponse,
  UploadTestResultsRequest,
  UploadTestResultsResponse,
} from "@mainline/proto/flaky";
import { createFlakyService } from "../../src/main.js";

export const REPO = { host: "github.com", owner: "acme", name: "widgets" };
export const T0 = Date.UTC(2026, 2, 10, 12, 0, 0);
export const HOUR = 3_600_000;
export const PAGE_TOKEN_KEY = "flaky-service-test-page-token-key";
export const PUBLIC_URL = "https://mainline.example.test";

export function junitFixture(name: string): string {
  return readFileSync(new URL(`../../../../junit/test/fixtures/junit/${name}`, import.meta.url), "utf8");
}

/** The real service: a nats-server, the embedded store, gRPC on a free port, the JetStream consumer. */
export class FlakyFixture {
  private constructor(
    /** The service's clock; tests may move it. */
    readonly clock: { now: number },
    readonly client: FlakyAnalyticsClient,
    readonly nc: NatsConnection,
    readonly address: string,
    private readonly nats: NatsServer,
    private readonly store: Store,
    private readonly server: GrpcServerHandle,
    private readonly consumer: ConsumerHandle,
  ) {}

  static async start(): Promise<FlakyFixture> {
    const nats = await NatsServer.start();
    const nc = await connect(nats.connectOptions());
    const store = await openStore({ database: "flaky-test", nats: nc });
    const clock = { now: T0 };
    const service = await createFlakyService({
      nats: nc,
      store,
      logger: createLogger("flaky-test", "silent"),
      pageTokenKey: PAGE_TOKEN_KEY,
      publicBaseUrl: PUBLIC_URL,
      now: () => clock.now,
    });
    const consumer = await service.startConsuming();
    const server = await startGrpcServer({ host: "127.0.0.1", port: 0, services: [service.grpc] });
    server.setServing(true);
    const address = `127.0.0.1:${server.port}`;
    const client = createGrpcClient(FlakyAnalyticsClient, address);
    return new FlakyFixture(clock, client, nc, address, nats, store, server, consumer);
  }

  upload(
    request: Partial<UploadTestResultsRequest> & { junitXml: string[] },
  ): Promise<UploadTestResultsResponse> {
    return callUnary(this.client.uploadTestResults.bind(this.client), {
      impactedPrNumbers: [],
      org: "acme",
      repo: REPO,
      commitSha: "a".repeat(40),
      branch: "main",
      variant: "",
      jobName: "test",
      runStartedAt: new Date(this.clock.now),
      context: ResultContext.CI,
      ...request,
    });
  }

  list(request: Partial<ListFailingTestsRequest> = {}): Promise<ListFailingTestsResponse> {
    return callUnary(this.client.listFailingTests.bind(this.client), {
      org: "acme",
      orgUrlSlug: "acme",
      repo: REPO,
      startTime: new Date(T0 - 24 * HOUR),
      endTime: new Date(T0 + 24 * HOUR),
      pageQuery: { pageSize: 100, pageToken: "" },
      ...request,
    });
  }

  async stop(): Promise<void> {
    await this.consumer.stop();
    this.client.close();
    await this.server.shutdown(1000);
    await this.store.close();
    await this.nc.close();
    await this.nats.stop();
  }
}

/** A Surefire-style report of `count` tests named test-000..; the ones in `failing` fail. */
export function surefireReport(
  count: number,
  failing: (index: number) => boolean,
  suite = "com.acme.BulkTest",
): string {
  const cases = Array.from({ length: count }, (_, i) => {
    const name = `test${String(i).padStart(3, "0")}`;
    return failing(i)
      ? `<testcase name="${name}" classname="${suite}" time="0.01"><failure message="expected ${i} but was ${i + 1}" type="AssertionError">stack</failure></testcase>`
      : `<testcase name="${name}" classname="${suite}" time="0.01"/>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${suite}" tests="${count}">\n${cases.join("\n")}\n</testsuite>\n`;
}
