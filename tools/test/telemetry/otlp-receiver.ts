import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One received span, flattened with the `service.name` of the resource that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 INTERNAL, 2 SERVER, 3 CLIENT, 4 PRODUCER, 5 CONSUMER. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
}

export const OtlpSpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

// The subset of OTLP/JSON (ExportTraceServiceRequest) read here; ids are hex strings in OTLP/JSON.
interface OtlpAnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpKeyValue[];
}
interface ExportTraceServiceRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

/**
 * A real OTLP/HTTP trace receiver (POST /v1/traces, JSON encoding, optionally gzip), the part of a collector
 * the services' exporters talk to. Protobuf bodies are refused with 415, which the exporter logs, so a switch
 * of the kit to the protobuf exporter shows up as missing spans with a clear cause rather than garbage.
 */
export class OtlpTraceReceiver {
  readonly spans: ReceivedSpan[] = [];
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    readonly endpoint: string,
  ) {}

  static async start(): Promise<OtlpTraceReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new OtlpTraceReceiver(server, `http://127.0.0.1:${port}`);
    server.on("request", (req: IncomingMessage, res: ServerResponse) => void receiver.handle(req, res));
    return receiver;
  }

  /** Resolves once `done(spans)` holds, or with false when `timeoutMs` passes first. */
  async waitFor(done: (spans: readonly ReceivedSpan[]) => boolean, timeoutMs: number): Promise<boolean> {
    if (done(this.spans)) return true;
    return new Promise<boolean>((resolve) => {
      const check = () => {
        if (!done(this.spans)) return;
        finish(true);
      };
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.add(check);
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== "POST" || req.url !== "/v1/traces") {
      res.writeHead(404).end();
      return;
    }
    if (!(req.headers["content-type"] ?? "").startsWith("application/json")) {
      res.writeHead(415, { "content-type": "text/plain" }).end("this receiver accepts OTLP/JSON only");
      return;
    }
    let body = Buffer.concat(chunks);
    if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
    let request: ExportTraceServiceRequest;
    try {
      request = JSON.parse(body.toString("utf8")) as ExportTraceServiceRequest;
    } catch {
      res.writeHead(400, { "content-type": "text/plain" }).end("body is not JSON");
      return;
    }
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      const service = String(resource["service.name"] ?? "");
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? "",
            name: span.name,
            kind: span.kind ?? 0,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
    for (const check of [...this.waiters]) check();
  }
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    if (value?.stringValue !== undefined) out[key] = value.stringValue;
    else if (value?.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) out[key] = value.doubleValue;
    else if (value?.boolValue !== undefined) out[key] = value.boolValue;
  }
  return out;
}
