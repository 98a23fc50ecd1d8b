import { expect } from "chai";
import { resetTelemetryGlobals } from "@mainline/testing";
import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { captureTraceCarrier, ensureStream, jsonCodec, publish } from "../../src/bus/index.js";
import { BusFixture } from "./bus-fixture.js";

describe("bus trace carrier: a message published later keeps the trace of its cause", () => {
  const codec = jsonCodec<{ pr: number }>();
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = () => trace.getTracer("test");
  let bus: BusFixture;

  before(async () => {
    resetTelemetryGlobals();
    provider.register();
    bus = await BusFixture.start();
    const { jsm } = await bus.connect();
    await ensureStream(jsm, { name: "EVENTS", subjects: ["events.>"], retention: "limits" });
  });
  after(async () => {
    await bus.stop();
    await provider.shutdown();
    resetTelemetryGlobals();
  });
  beforeEach(() => exporter.reset());

  const publishInSweep = async (carrier: Record<string, string>, msgId: string) => {
    const { js } = await bus.connect();
    return tracer().startActiveSpan("sweep", async (sweep) => {
      await publish(js, "events.pr", codec, { pr: 1 }, { msgId, traceCarrier: carrier });
      sweep.end();
      return sweep.spanContext().traceId;
    });
  };
  const publishSpan = () => exporter.getFinishedSpans().find((s) => s.name === "events.pr publish");

  it("captures the active trace as W3C fields and publishes under it from another context", async () => {
    const cause = tracer().startActiveSpan("request", (span) => {
      span.end();
      return { carrier: captureTraceCarrier(), ...span.spanContext() };
    });
    expect(Object.keys(cause.carrier)).to.deep.equal(["traceparent"]);

    await publishInSweep(cause.carrier, "pr-1-a");
    expect(publishSpan()?.spanContext().traceId).to.equal(cause.traceId);
    expect(publishSpan()?.parentSpanContext?.spanId).to.equal(cause.spanId);
  });

  it("starts a trace of its own for a cause that was not traced, rather than joining whoever publishes", async () => {
    const carrier = captureTraceCarrier();
    expect(carrier).to.deep.equal({});

    const sweepTraceId = await publishInSweep(carrier, "pr-1-b");
    expect(publishSpan()?.spanContext().traceId).to.not.equal(sweepTraceId);
    expect(publishSpan()?.parentSpanContext).to.equal(undefined);
  });
});
