import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One request the receiver got, after checking its signature with the standardwebhooks package. */
export interface Arrival {
  webhookId: string;
  payload: Record<string, unknown>;
  headers: Record<string, string>;
  /** Status the receiver answered with ("hang": it never answered). */
  answered: number | "hang";
}

/** Decides the answer to the n-th request (0-based) of this receiver. */
export type Responder = (arrival: Omit<Arrival, "answered">, index: number) => number | "hang";

/**
 * A real HTTP endpoint on loopback. Every request is verified with `standardwebhooks` (code we did not
 * write); a request that fails verification is counted in `rejected` and answered 400.
 */
export class WebhookReceiver {
  readonly arrivals: Arrival[] = [];
  readonly rejected: string[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    public secret: string,
    public respond: Responder,
  ) {}

  static async start(secret: string, respond: Responder = () => 204): Promise<WebhookReceiver> {
    // The server exists before the receiver that answers its requests.
    const holder: { receiver?: WebhookReceiver } = {};
    const server = createServer((req, res) => void holder.receiver?.handle(req, res));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    holder.receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`, secret, respond);
    return holder.receiver;
  }

  /** Arrivals answered 2xx: the events the receiver accepted. */
  get accepted(): Arrival[] {
    return this.arrivals.filter((a) => typeof a.answered === "number" && a.answered < 300);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    let payload: Record<string, unknown>;
    try {
      payload = new Webhook(this.secret).verify(body, headers) as Record<string, unknown>;
    } catch (error) {
      this.rejected.push(error instanceof Error ? error.message : String(error));
      res.statusCode = 400;
      res.end();
      return;
    }
    const arrival = { webhookId: headers["webhook-id"] ?? "", payload, headers };
    const answered = this.respond(arrival, this.arrivals.length);
    this.arrivals.push({ ...arrival, answered });
    if (answered === "hang") {
      this.hanging.add(res);
      return;
    }
    res.statusCode = answered;
    res.end();
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, "close").catch(() => undefined);
  }
}

/** Polls until `condition` holds; fails with `what` when it never does. */
export async function eventually(what: string, condition: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
