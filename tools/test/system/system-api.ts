import { setTimeout as sleep } from "node:timers/promises";

export interface Answer {
  status: number;
  json: Record<string, unknown>;
  text: string;
}

/**
 * The workload's HTTP calls to the gateway. While a fault is on, a call may find no answer or a 503 (a service or
 * its node gone); the workload then tries again, as a CI script or a user would, until `patienceMs` has passed.
 * Any other answer (200, 4xx) is the API's and is returned as it is.
 */
export class SystemApi {
  calls = 0;
  retries = 0;

  private current = 0;

  /** `apiUrls`: every gateway replica; a call that finds no answer tries the next, as a load balancer would. */
  constructor(
    readonly apiUrls: readonly string[],
    readonly token: string,
    private readonly patienceMs = 120_000,
  ) {}

  async post(route: string, body: unknown): Promise<Answer> {
    return this.send("POST", route, body);
  }

  async get(route: string): Promise<Answer> {
    return this.send("GET", route, undefined);
  }

  async delete(route: string): Promise<Answer> {
    return this.send("DELETE", route, undefined);
  }

  private async send(method: string, route: string, body: unknown): Promise<Answer> {
    const deadline = Date.now() + this.patienceMs;
    for (;;) {
      this.calls += 1;
      const answer = await this.once(method, route, body).catch((error: Error) => error);
      if (!(answer instanceof Error) && answer.status < 500) return answer;
      if (Date.now() > deadline) {
        const why = answer instanceof Error ? answer.message : `${answer.status} ${answer.text}`;
        throw new Error(`${method} ${route} got no answer within ${this.patienceMs} ms: ${why}`);
      }
      this.retries += 1;
      this.current = (this.current + 1) % this.apiUrls.length;
      await sleep(250);
    }
  }

  private async once(method: string, route: string, body: unknown): Promise<Answer> {
    const response = await fetch(`${this.apiUrls[this.current]}${route}`, {
      method,
      headers: { "content-type": "application/json", "x-api-token": this.token },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let json: Record<string, unknown> = {};
    try {
      json = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      // plain-text answers (errors, metrics) keep only their text
    }
    return { status: response.status, json, text };
  }

  /** A call that must succeed (2xx): a 4xx is the test's failure, named with the route and the answer. */
  async ok(route: string, body: unknown): Promise<Record<string, unknown>> {
    const answer = await this.post(route, body);
    if (answer.status < 200 || answer.status > 299)
      throw new Error(`${route} answered ${answer.status}: ${answer.text}`);
    return answer.json;
  }
}
