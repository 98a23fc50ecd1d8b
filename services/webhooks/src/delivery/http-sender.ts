import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { signedHeaders } from "../domain/signing.js";
import { RefusedUrlError, type UrlGuard } from "./url-guard.js";

/** What one attempt came to: a status code when the receiver answered, an error otherwise. */
export interface AttemptOutcome {
  succeeded: boolean;
  statusCode?: number;
  error?: string;
  durationMs: number;
}

export interface SignedRequest {
  url: string;
  secret: string;
  webhookId: string;
  body: string;
}

/**
 * Sends one signed POST. Only a 2xx answer counts as delivered; redirects are not followed (the target
 * of a redirect would escape the address check). The response body is read and dropped, up to a limit.
 */
export class HttpSender {
  constructor(
    private readonly guard: UrlGuard,
    private readonly timeoutMs: number,
    /** Aborted when the service is killed: an attempt in flight ends without a log entry or an ack. */
    private readonly signal: AbortSignal,
  ) {}

  async send(req: SignedRequest, now: () => Date): Promise<AttemptOutcome> {
    const started = Date.now();
    const elapsed = () => Date.now() - started;
    let url: URL;
    try {
      url = await this.guard.check(req.url);
    } catch (error) {
      return { succeeded: false, error: describe(error), durationMs: elapsed() };
    }
    const headers = {
      "content-type": "application/json",
      "user-agent": "Mainline-Webhooks/1.0",
      ...signedHeaders(req.secret, req.webhookId, now(), req.body),
    };
    try {
      const statusCode = await this.post(url, headers, req.body);
      const succeeded = statusCode >= 200 && statusCode < 300;
      return {
        succeeded,
        statusCode,
        ...(!succeeded && { error: `receiver answered HTTP ${statusCode}` }),
        durationMs: elapsed(),
      };
    } catch (error) {
      if (this.signal.aborted) throw error;
      return { succeeded: false, error: describe(error), durationMs: elapsed() };
    }
  }

  private post(url: URL, headers: Record<string, string>, body: string): Promise<number> {
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<number>((resolve, reject) => {
      const req = send(
        url,
        {
          method: "POST",
          headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
          lookup: this.guard.lookup,
          signal: this.signal,
        },
        (res: IncomingMessage) => {
          let read = 0;
          res.on("data", (chunk: Buffer) => {
            read += chunk.length;
            if (read > 64 * 1024) res.destroy();
          });
          res.on("error", () => resolve(res.statusCode ?? 0));
          res.on("close", () => resolve(res.statusCode ?? 0));
        },
      );
      // A deadline on the whole exchange, not per socket read: a receiver trickling bytes still ends.
      const deadline = setTimeout(
        () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      req.on("close", () => clearTimeout(deadline));
      req.on("error", reject);
      req.end(body);
    });
  }
}

function describe(error: unknown): string {
  if (error instanceof RefusedUrlError) return `refused: ${error.rule}`;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
