import { expect } from "chai";
import { resetTelemetryGlobals } from "@mainline/testing";
import { SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import {
  consume,
  ensureConsumer,
  ensureStream,
  jsonCodec,
  publish,
  type ConsumerHandle,
} from "../../src/bus/index.js";
import { BusFixture, signal } from "./bus-fixture.js";

describe("bus trace context", () => {
  const codec = jsonCodec<{ pr: number }>();
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let bus: BusFixture;
  let handle: ConsumerHandle | undefined;

  before(async () => {
    // register() installs what the SDK installs in production: the W3C propagator and an
    // AsyncLocalStorage context manager. Globals from other test files are cleared first.
    resetTelemetryGlobals();
    provider.register();
    bus = await BusFixture.start();
  });
  after(async () => {
    await handle?.stop();
    await bus.stop();
    await provider.shutdown();
    resetTelemetryGlobals();
  });

  it("handles a message inside a CONSUMER span of the publisher's trace, active in the handler", async () => {
    const { js, jsm } = await bus.connect();
    await ensureStream(jsm, { name: "EVENTS", subjects: ["events.>"], retention: "limits" });
    await ensureConsumer(jsm, "EVENTS", { durable: "metrics", ackWaitMs: 5_000, maxDeliver: 3 });
    const activeInHandler = signal<string | undefined>();
    handle = await consume({
      js,
      stream: "EVENTS",
      durable: "metrics",
      codec,
      handler: () => {
        activeInHandler.resolve(trace.getActiveSpan()?.spanContext().traceId);
        return Promise.resolve();
      },
    });

    const tracer = trace.getTracer("test");
    const requestTraceId = await tracer.startActiveSpan("POST /v1/queues/q/prs", async (request) => {
      await publish(js, "events.pr.enqueued", codec, { pr: 42 }, { msgId: "pr-enqueued:42" });
      request.end();
      return request.spanContext().traceId;
    });

    expect(await activeInHandler.promise).to.equal(requestTraceId);
    await handle.stop();
    handle = undefined;
    const spans = exporter.getFinishedSpans();
    const publishSpan = spans.find((s) => s.name === "events.pr.enqueued publish");
    const processSpan = spans.find((s) => s.name === "events.pr.enqueued process");
    expect(publishSpan?.kind).to.equal(SpanKind.PRODUCER);
    expect(processSpan?.kind).to.equal(SpanKind.CONSUMER);
    expect(publishSpan?.instrumentationScope.name).to.equal("mainline-bus");
    expect(processSpan?.spanContext().traceId).to.equal(requestTraceId);
    expect(processSpan?.parentSpanContext?.spanId).to.equal(publishSpan?.spanContext().spanId);
    expect(processSpan?.attributes["messaging.message.id"]).to.equal("pr-enqueued:42");
  });
});
