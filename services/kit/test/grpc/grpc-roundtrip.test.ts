import { expect } from "chai";
import { resetTelemetryGlobals } from "@mainline/testing";
import { context, propagation, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  makeGenericClientConstructor,
  status,
  type Client,
  type handleUnaryCall,
  type ServiceDefinition,
} from "@grpc/grpc-js";
import { NotFoundError } from "../../src/errors/index.js";
import { createLogger } from "../../src/logging/index.js";
import {
  callUnary,
  checkGrpcHealth,
  createGrpcClient,
  MAX_STATUS_MESSAGE_LENGTH,
  RemoteCallError,
  startGrpcServer,
  toGrpcImplementation,
  type GrpcServerHandle,
} from "../../src/grpc/index.js";

interface EchoRequest {
  text: string;
}
interface EchoResponse {
  text: string;
  traceId: string;
}
const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
// A real gRPC service over the wire, with JSON instead of protobuf so the test needs no generated code.
const EchoService = {
  echo: {
    path: "/test.Echo/Echo",
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
} satisfies ServiceDefinition;
type EchoServer = { echo: handleUnaryCall<EchoRequest, EchoResponse> };
type EchoClient = Client & {
  echo: (
    request: EchoRequest,
    metadata: import("@grpc/grpc-js").Metadata,
    options: Partial<import("@grpc/grpc-js").CallOptions>,
    callback: (error: import("@grpc/grpc-js").ServiceError | null, response: EchoResponse) => void,
  ) => import("@grpc/grpc-js").ClientUnaryCall;
};
const EchoClientCtor = makeGenericClientConstructor(EchoService, "Echo") as unknown as new (
  ...args: ConstructorParameters<ReturnType<typeof makeGenericClientConstructor>>
) => EchoClient;

describe("gRPC bootstrap", () => {
  const exporter = new InMemorySpanExporter();
  let server: GrpcServerHandle;
  let client: EchoClient;
  /** What the handler of a "wait" call saw: its CallContext.signal aborted once the caller hung up. */
  let waited: Promise<boolean> | undefined;

  before(async () => {
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    resetTelemetryGlobals();
    expect(trace.setGlobalTracerProvider(provider), "this file's tracer provider is the global one").to.equal(
      true,
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const implementation = toGrpcImplementation<EchoServer>(
      {
        echo: (request, call) => {
          if (request.text === "wait") {
            waited = new Promise((resolve) => {
              call.signal?.addEventListener("abort", () => resolve(true));
              setTimeout(() => resolve(false), 5_000);
            });
            return waited.then(() => ({ text: "late", traceId: "" }));
          }
          if (request.text === "missing")
            return Promise.reject(new NotFoundError("queue main does not exist"));
          if (request.text === "bug") return Promise.reject(new TypeError("secret internals"));
          if (request.text === "sync-bug") throw new TypeError("thrown before any promise");
          if (request.text.startsWith("quote:"))
            return Promise.reject(new NotFoundError(`no test named ${request.text.slice(6)}`));
          const traceId = trace.getActiveSpan()?.spanContext().traceId ?? "";
          return Promise.resolve({ text: request.text.toUpperCase(), traceId });
        },
      },
      createLogger("test", "silent"),
    );
    server = await startGrpcServer({
      host: "127.0.0.1",
      port: 0,
      services: [{ definition: EchoService, implementation }],
    });
    client = createGrpcClient(EchoClientCtor, `127.0.0.1:${server.port}`);
  });

  after(async () => {
    client.close();
    await server.shutdown(100);
    resetTelemetryGlobals();
  });

  it("answers async handlers", async () => {
    const response = await callUnary(client.echo.bind(client), { text: "hi" });
    expect(response.text).to.equal("HI");
  });

  it("carries a typed error's status and message to the caller", async () => {
    const error = await callUnary(client.echo.bind(client), { text: "missing" }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(RemoteCallError);
    expect((error as RemoteCallError).code).to.equal("NOT_FOUND");
    expect((error as RemoteCallError).message).to.equal("queue main does not exist");
  });

  it("answers INTERNAL without leaking an unexpected error's message", async () => {
    const error = await callUnary(client.echo.bind(client), { text: "bug" }).catch((e: unknown) => e);
    expect((error as RemoteCallError).code).to.equal("INTERNAL");
    expect((error as RemoteCallError).message).to.not.contain("secret");
  });

  it("answers a handler that throws synchronously with INTERNAL, and keeps serving", async () => {
    const error = await callUnary(client.echo.bind(client), { text: "sync-bug" }).catch((e: unknown) => e);
    expect((error as RemoteCallError).code).to.equal("INTERNAL");
    expect((await callUnary(client.echo.bind(client), { text: "next" })).text).to.equal("NEXT");
  });

  it("sends a message quoting half an emoji as well-formed text instead of crashing the server", async () => {
    // "🚀".slice(0, 1) is a lone high surrogate: grpc-js's encodeURI of the status message throws on it.
    const error = await callUnary(client.echo.bind(client), { text: `quote:x${"🚀".slice(0, 1)}y` }).catch(
      (e: unknown) => e,
    );
    expect((error as RemoteCallError).code).to.equal("NOT_FOUND");
    expect((error as RemoteCallError).message).to.equal("no test named x\uFFFDy");
    expect((await callUnary(client.echo.bind(client), { text: "after" })).text).to.equal("AFTER");
  });

  it("bounds a status message that quotes a huge value", async () => {
    const error = await callUnary(client.echo.bind(client), { text: `quote:${"🚀".repeat(300_000)}` }).catch(
      (e: unknown) => e,
    );
    expect((error as RemoteCallError).code).to.equal("NOT_FOUND");
    const message = (error as RemoteCallError).message;
    expect(message.length).to.be.at.most(MAX_STATUS_MESSAGE_LENGTH);
    expect(message).to.match(/^no test named (🚀)+…$/u);
  });

  it("cancels a call whose caller went away, and tells the handler so", async () => {
    const hungUp = new AbortController();
    const call = callUnary(client.echo.bind(client), { text: "wait" }, { signal: hungUp.signal });
    while (waited === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    hungUp.abort();
    const error = await call.catch((e: unknown) => e);
    expect((error as RemoteCallError).grpcStatus).to.equal(status.CANCELLED);
    expect(await waited, "the handler's signal aborted").to.equal(true);
    const refused = await callUnary(
      client.echo.bind(client),
      { text: "hi" },
      { signal: hungUp.signal },
    ).catch((e: unknown) => e);
    expect((refused as RemoteCallError).grpcStatus, "a call for a caller already gone is not made").to.equal(
      status.CANCELLED,
    );
  });

  it("continues the caller's trace on the server", async () => {
    const tracer = trace.getTracer("test");
    const span = tracer.startSpan("client operation");
    const response = await context.with(trace.setSpan(context.active(), span), () =>
      callUnary(client.echo.bind(client), { text: "traced" }),
    );
    span.end();
    expect(response.traceId).to.equal(span.spanContext().traceId);
    // The server ends its span before it answers.
    const serverSpan = exporter
      .getFinishedSpans()
      .find((s) => s.name === "test.Echo/Echo" && s.spanContext().traceId === span.spanContext().traceId);
    expect(serverSpan, "server span in the same trace").to.not.equal(undefined);
  });

  it("reports SERVING over grpc.health.v1 only while serving", async () => {
    const address = `127.0.0.1:${server.port}`;
    expect(await checkGrpcHealth(address)).to.equal(false);
    server.setServing(true);
    expect(await checkGrpcHealth(address)).to.equal(true);
    server.setServing(false);
    expect(await checkGrpcHealth(address)).to.equal(false);
  });
});
