import { expect } from "chai";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { callUnary, createGrpcClient, RemoteCallError } from "@mainline/kit/grpc/index";
import { rejection, resetTelemetryGlobals } from "@mainline/testing";
import { SubmittedPullRequestLookups } from "@mainline/gateway/upstream/submitted-pull-request-lookups";
import { CreateQueueRequest, QueueCoordinatorClient, SubmitPullRequestRequest } from "@mainline/proto/queue";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

const queue = {
  org: "acme",
  repo: { host: "github.com", owner: "acme", name: "widgets" },
  targetBranch: "main",
};
const byNumber = (value: number) => ({ queue, pr: { $case: "number" as const, value } });

describe("gateway status polls share gRPC calls (SubmittedPullRequestLookups)", function () {
  this.timeout(20_000);
  let coordinator: CoordinatorHarness;
  let client: QueueCoordinatorClient;
  let calls: number[];

  /** Lookups over the real coordinator, counting the size of every GetSubmittedPullRequests call. */
  const lookupsOver = (c: QueueCoordinatorClient, maxBatchSize?: number) => {
    const counted = Object.create(c) as QueueCoordinatorClient;
    counted.getSubmittedPullRequests = ((request, ...rest: unknown[]) => {
      calls.push(request.lookups.length);
      return (c.getSubmittedPullRequests as (...args: unknown[]) => unknown).call(c, request, ...rest);
    }) as QueueCoordinatorClient["getSubmittedPullRequests"];
    return new SubmittedPullRequestLookups(counted, maxBatchSize);
  };

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    client = createGrpcClient(QueueCoordinatorClient, coordinator.address);
    await callUnary(client.createQueue.bind(client), CreateQueueRequest.fromPartial({ queue }));
    for (const prNumber of [1, 2, 3])
      await callUnary(
        client.submitPullRequest.bind(client),
        SubmitPullRequestRequest.fromPartial({ queue, prNumber }),
      );
  });
  beforeEach(() => {
    calls = [];
  });
  after(async () => {
    client.close();
    await coordinator.stop();
    await coordinator.nats.stop();
  });

  it("answers lookups that arrive together with one call, each with its own PR or error", async () => {
    const lookups = lookupsOver(client);
    const numbers = Array.from({ length: 30 }, (_, i) => (i % 4) + 1);
    const answers = await Promise.all(
      numbers.map((n) =>
        lookups.get(byNumber(n)).then(
          (pr) => pr.prNumber,
          (error: RemoteCallError) => error.grpcStatus,
        ),
      ),
    );
    expect(calls).to.deep.equal([30]);
    // PR 4 was never submitted: NOT_FOUND for it alone.
    expect(answers).to.deep.equal(numbers.map((n) => (n === 4 ? GrpcStatus.NOT_FOUND : n)));
  });

  it("splits a crowd into calls of at most maxBatchSize lookups", async () => {
    const lookups = lookupsOver(client, 10);
    const answers = await Promise.all(Array.from({ length: 25 }, () => lookups.get(byNumber(2))));
    expect(calls).to.deep.equal([10, 10, 5]);
    expect(answers.map((pr) => pr.prNumber)).to.deep.equal(Array.from({ length: 25 }, () => 2));
  });

  it("makes a separate call for lookups that arrive later, so no poll waits on a stranger", async () => {
    const lookups = lookupsOver(client);
    expect((await lookups.get(byNumber(1))).prNumber).to.equal(1);
    expect((await lookups.get(byNumber(3))).prNumber).to.equal(3);
    expect(calls).to.deep.equal([1, 1]);
  });

  it("traces the shared call under the first poll's span, linking every other poll's span", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    resetTelemetryGlobals();
    provider.register();
    try {
      const lookups = lookupsOver(client);
      const tracer = trace.getTracer("test");
      const polls = [1, 2, 3].map((n) =>
        tracer.startActiveSpan(`POST /v1/getSubmittedPullRequest ${n}`, (span) =>
          lookups.get(byNumber(n)).finally(() => span.end()),
        ),
      );
      await Promise.all(polls);
      const spans = exporter.getFinishedSpans();
      const poll = (n: number) => spans.find((s) => s.name === `POST /v1/getSubmittedPullRequest ${n}`)!;
      const batch = spans.find((s) => s.name === "getSubmittedPullRequest batch");
      expect(batch, spans.map((s) => s.name).join(", ")).to.not.equal(undefined);
      expect(batch!.attributes["mainline.batch.size"]).to.equal(3);
      expect(batch!.spanContext().traceId).to.equal(poll(1).spanContext().traceId);
      expect(batch!.parentSpanContext?.spanId).to.equal(poll(1).spanContext().spanId);
      expect(batch!.links.map((l) => l.context.spanId)).to.deep.equal([
        poll(2).spanContext().spanId,
        poll(3).spanContext().spanId,
      ]);
      // The coordinator's handler span (same process here) continues the batch's trace through gRPC metadata.
      const handler = spans.find((s) => s.name.endsWith("QueueCoordinator/GetSubmittedPullRequests"));
      expect(handler?.parentSpanContext?.spanId).to.equal(batch!.spanContext().spanId);
    } finally {
      await provider.shutdown();
      resetTelemetryGlobals();
    }
  });

  it("fails every lookup of a call the coordinator never answered, as retryable UNAVAILABLE", async () => {
    const unreachable = createGrpcClient(QueueCoordinatorClient, "127.0.0.1:1");
    try {
      const lookups = lookupsOver(unreachable);
      const errors = await Promise.all([1, 2].map((n) => rejection(lookups.get(byNumber(n)))));
      expect(calls).to.deep.equal([2]);
      for (const error of errors) {
        expect(error).to.be.instanceOf(RemoteCallError);
        expect(error).to.include({ grpcStatus: GrpcStatus.UNAVAILABLE, retryable: true });
      }
    } finally {
      unreachable.close();
    }
  });
});
