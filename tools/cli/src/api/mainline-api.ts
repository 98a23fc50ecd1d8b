import { CliError, EXIT } from "../cli-error.js";

/** The gateway answered with an error status; its plain-text body says what was wrong. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly body: string,
    route: string,
  ) {
    super(`${route} answered ${status}: ${body.trim() || "(no message)"}${hintFor(status)}`, EXIT.failed);
    this.name = "ApiError";
  }
}

/** No HTTP answer at all: the gateway is down, the address is wrong, or it took too long. */
export class ServiceUnreachableError extends CliError {
  constructor(
    readonly apiUrl: string,
    readonly reason: string,
  ) {
    super(
      `cannot reach Mainline at ${apiUrl} (${reason}): start it with \`make dev\` or point MAINLINE_URL at the gateway`,
      EXIT.unreachable,
    );
    this.name = "ServiceUnreachableError";
  }
}

function hintFor(status: number): string {
  if (status === 401) return " (check MAINLINE_TOKEN: it must be a token the gateway issued)";
  if (status === 403) return " (this token may not do that: use an admin token or one of that organisation)";
  return "";
}

type Query = Record<string, string | number | undefined>;

/** A thin client of the gateway's /v1 HTTP API: JSON in and out, the token in `x-api-token`. */
export class MainlineApi {
  constructor(
    readonly apiUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 30_000,
  ) {}

  post<T>(route: string, body: unknown): Promise<T> {
    return this.request<T>("POST", route, undefined, body);
  }

  get<T>(route: string, query?: Query): Promise<T> {
    return this.request<T>("GET", route, query);
  }

  delete<T>(route: string, query?: Query): Promise<T> {
    return this.request<T>("DELETE", route, query);
  }

  /** A route that answers plain text, such as a test run's output. */
  text(route: string): Promise<string> {
    return this.send("GET", route);
  }

  private async request<T>(method: string, route: string, query?: Query, body?: unknown): Promise<T> {
    const text = await this.send(method, route, query, body);
    if (text === "") return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(`${method} ${route} answered with a body that is not JSON`, EXIT.failed);
    }
  }

  private async send(method: string, route: string, query?: Query, body?: unknown): Promise<string> {
    const url = new URL(`${this.apiUrl}${route}`);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          "x-api-token": this.token,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ServiceUnreachableError(this.apiUrl, reasonOf(error));
    }
    const text = await response.text();
    if (!response.ok) throw new ApiError(response.status, text, `${method} ${route}`);
    return text;
  }
}

/** fetch hides the socket error in `cause`; that is the part that says what happened. */
function reasonOf(error: unknown): string {
  if (error instanceof Error && error.name === "TimeoutError") return "no answer in time";
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.message || cause?.code || (error instanceof Error ? error.message : String(error));
}
