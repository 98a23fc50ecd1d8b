import { expect } from "chai";
import { SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { connect, type NatsConnection } from "nats";
import { NatsServer, resetTelemetryGlobals } from "@mainline/testing";
import { provisionMainlineStreams, STREAMS, SUBJECTS } from "@mainline/kit/streams/index";
import type { PlannerState } from "../../src/domain/index.js";
import { OutboxBuilder, publishOutbox } from "../../src/app/outbox.js";
import type { OutboxMessage } from "../../src/store/outbox-message.js";
import type { QueueDocument } from "../../src/store/queue-repository.js";

// notice() reads only the queue's identity and event counter; the planner state is not consulted.
const doc = {
  _id: "dev/git.example.com/acme/app/main",
  org: "dev",
  repo: { host: "git.example.com", owner: "acme", name: "app" },
  targetBranch: "main",
  createdAt: "2026-01-01T00:00:00.000Z",
  eventSeq: 0,
} as QueueDocument;

/**
 * The outbox may be published after the step that filled it (by the timekeeper, or by the next step on the
 * queue), in a context that has nothing to do with the cause. Its publish spans must still join the trace of
 * the call that decided the messages (issue 10).
 */
describe("outbox: publish spans join the trace of the step that decided the messages", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = () => trace.getTracer("test");
  let server: NatsServer;
  let nc: NatsConnection;

  const decideInSpan = (name: string): { traceId: string; spanId: string; messages: OutboxMessage[] } =>
    tracer().startActiveSpan(name, (span) => {
      const builder = new OutboxBuilder({
        doc,
        state: {} as PlannerState,
        connection: null,
        runRecords: new Map(),
        now: new Date(),
      });
      builder.notice({ type: "BATCH_MERGED", mergeId: "merge-1", prs: [1, 2], at: Date.now() });
      span.end();
      return { ...span.spanContext(), messages: builder.messages };
    });

  before(async () => {
    resetTelemetryGlobals();
    provider.register();
    server = await NatsServer.start();
    nc = await connect(server.connectOptions());
    await provisionMainlineStreams(await nc.jetstreamManager());
  });
  after(async () => {
    await nc?.close();
    await server?.stop();
    await provider.shutdown();
    resetTelemetryGlobals();
  });
  beforeEach(() => exporter.reset());

  it("stores the deciding trace with each message and publishes under it from another trace later", async () => {
    const decided = decideInSpan("POST /v1/submitPullRequest");
    expect(decided.messages).to.have.length(1);
    expect(decided.messages[0]!.trace?.traceparent).to.include(decided.traceId);

    // Round-trip through JSON as the store does, then flush from an unrelated (timekeeper) trace.
    const stored = JSON.parse(JSON.stringify(decided.messages)) as OutboxMessage[];
    const sweepTraceId = await tracer().startActiveSpan("timekeeper sweep", async (sweep) => {
      await publishOutbox(nc.jetstream(), stored);
      sweep.end();
      return sweep.spanContext().traceId;
    });

    const publishSpan = exporter.getFinishedSpans().find((s) => s.name === `${SUBJECTS.batchEvent} publish`);
    expect(publishSpan?.kind).to.equal(SpanKind.PRODUCER);
    expect(publishSpan?.spanContext().traceId).to.equal(decided.traceId).and.not.equal(sweepTraceId);
    expect(publishSpan?.parentSpanContext?.spanId).to.equal(decided.spanId);
    // What the consumers see: the message's traceparent names the publish span of the deciding trace.
    const jsm = await nc.jetstreamManager();
    const stored1 = await jsm.streams.getMessage(STREAMS.events.name, { last_by_subj: SUBJECTS.batchEvent });
    expect(stored1.header.get("traceparent")).to.equal(
      `00-${decided.traceId}-${publishSpan!.spanContext().spanId}-01`,
    );
  });

  it("publishes an entry stored without a trace (written before traces were kept) under the flusher's trace", async () => {
    const { messages } = decideInSpan("an older step");
    const legacy = messages.map(({ subject, msgId, payload }) => ({
      subject,
      msgId: `${msgId}-legacy`,
      payload,
    }));
    const sweepTraceId = await tracer().startActiveSpan("timekeeper sweep", async (sweep) => {
      await publishOutbox(nc.jetstream(), legacy);
      sweep.end();
      return sweep.spanContext().traceId;
    });
    const publishSpan = exporter.getFinishedSpans().find((s) => s.name === `${SUBJECTS.batchEvent} publish`);
    expect(publishSpan?.spanContext().traceId).to.equal(sweepTraceId);
  });
});
