import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  id: string;
  type: string;
  signatureValid: boolean;
  body: string;
}

/**
 * A receiver of Mainline's webhooks on loopback (the services run with WEBHOOKS_ALLOW_LOOPBACK, as under
 * `make dev`), checking each Standard Webhooks signature itself, as a receiver's library would: HMAC-SHA256
 * over "id.timestamp.body" keyed by the bytes of the `whsec_` secret.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly secret: string,
  ) {}

  static async start(secret: string): Promise<WebhookReceiver> {
    const received: { to?: WebhookReceiver } = {};
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        received.to?.record(request.headers, body);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    received.to = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`, secret);
    return received.to;
  }

  private record(headers: NodeJS.Dict<string | string[]>, body: string): void {
    const id = String(headers["webhook-id"] ?? "");
    const timestamp = String(headers["webhook-timestamp"] ?? "");
    const signatures = String(headers["webhook-signature"] ?? "").split(" ");
    const expected = createHmac("sha256", Buffer.from(this.secret.slice("whsec_".length), "base64"))
      .update(`${id}.${timestamp}.${body}`)
      .digest();
    const signatureValid = signatures.some((entry) => {
      const [version, value = ""] = entry.split(",");
      const given = Buffer.from(value, "base64");
      return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
    });
    let type: string;
    try {
      const parsed = (JSON.parse(body) as { type?: unknown }).type;
      type = typeof parsed === "string" ? parsed : "(no type)";
    } catch {
      type = "(not JSON)";
    }
    this.received.push({ id, type, signatureValid, body });
  }

  /** Deliveries per webhook-id, for those received more than once. */
  duplicates(): Record<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.received) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
    return Object.fromEntries([...counts].filter(([, n]) => n > 1));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
