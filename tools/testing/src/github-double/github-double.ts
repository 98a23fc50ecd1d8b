import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { appJwtProblem, type TestAppCredentials } from "./app-credentials.js";
import {
  GitHubDescription,
  loadGitHubDescription,
  type GitHubFlavour,
  type MatchedOperation,
} from "./github-description.js";
import { RequestChecker } from "./request-checker.js";

/** One request Mainline made, in arrival order. */
export interface RecordedRequest {
  readonly seq: number;
  /** Date.now() when the request arrived, to check that a client waited (retry-after, spacing). */
  readonly receivedAt: number;
  readonly method: string;
  /** The path without the API's base (/api/v3 on Enterprise Server). */
  readonly path: string;
  /** "METHOD /template" and the operationId, when the description has the operation. */
  readonly route?: string;
  readonly operationId?: string;
  readonly pathParams: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** The installation whose token authorised the request; "app" for an App JWT. */
  readonly credential?: number | "app";
  status: number;
  /** What the double answered (a created resource's id, for instance). */
  responseBody?: unknown;
}

/** What the double answers instead of the description's example. */
export interface ScriptedReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}
/** A reply, or a function of the request that returns one (undefined: answer as usual). */
export type Script = ScriptedReply | ((request: RecordedRequest) => ScriptedReply | undefined);

/** A repository an installation covers, as "owner/name". */
export interface DoubleInstallation {
  readonly id: number;
  readonly account: string;
  readonly repositories: readonly string[];
}

export interface GitHubDoubleOptions {
  /** Enterprise Server answers under /api/v3 and speaks its own description. */
  flavour?: GitHubFlavour;
  /** When given, App endpoints need this App's JWT and every other call an installation token the double issued. */
  app?: TestAppCredentials;
  /** Installations the App has; a token only reaches the repositories of its installation. */
  installations?: readonly DoubleInstallation[];
  /** Lifetime of issued installation tokens (GitHub: one hour). */
  tokenLifetimeSeconds?: number;
}

/** Thrown by assertNoViolations: Mainline made a request GitHub's description does not allow. */
export class GitHubContractViolation extends Error {
  constructor(readonly violations: readonly string[]) {
    super(`requests GitHub's description does not allow:\n  ${violations.join("\n  ")}`);
    this.name = "GitHubContractViolation";
  }
}

interface ScriptEntry {
  readonly match: string;
  readonly script: Script;
  remaining: number;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/**
 * A local stand-in for GitHub's REST API (the one boundary our tests cannot reach). Every request is matched to an
 * operation of GitHub's own OpenAPI description and checked (parameters, body); one the description does not
 * allow is recorded as a violation and answered as GitHub would (404/422). Allowed requests get the description's
 * example for the success response, with created ids numbered and the request's own fields echoed, unless the
 * test scripted a reply (a rate limit, an outage, a particular state).
 */
export class GitHubDouble {
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  private readonly scripts: ScriptEntry[] = [];
  private readonly tokens = new Map<string, { installationId: number; expiresAt: number }>();
  private nextId = 1000;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly basePath: string,
    private readonly description: GitHubDescription,
    private readonly checker: RequestChecker,
    private readonly options: GitHubDoubleOptions,
  ) {}

  static async start(options: GitHubDoubleOptions = {}): Promise<GitHubDouble> {
    const flavour = options.flavour ?? "api.github.com";
    const description = new GitHubDescription(await loadGitHubDescription(flavour));
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const basePath = flavour.startsWith("ghes") ? "/api/v3" : "";
    const double = new GitHubDouble(
      server,
      `http://127.0.0.1:${port}${basePath}`,
      basePath,
      description,
      new RequestChecker(description),
      options,
    );
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      void double.handle(req, res).catch((error: unknown) => {
        double.violations.push(`the double failed on ${req.method} ${req.url}: ${String(error)}`);
        if (!res.headersSent) res.writeHead(500, JSON_HEADERS);
        res.end(JSON.stringify({ message: "double failure" }));
      });
    });
    return double;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, "close");
  }

  /**
   * Answers the next `times` requests matching `match` (an operationId such as "checks/create", or
   * "POST /repos/{owner}/{repo}/check-runs") with the script; Infinity keeps it for good.
   */
  script(match: string, script: Script, times = 1): void {
    this.scripts.push({ match, script, remaining: times });
  }

  /** Drops every scripted reply: GitHub answers as usual again (e.g. an outage is over). */
  clearScripts(): void {
    this.scripts.length = 0;
  }

  /** The recorded requests of one operation (operationId or "METHOD /template"), in order. */
  calls(match: string): RecordedRequest[] {
    return this.requests.filter((r) => r.operationId === match || r.route === match);
  }

  /** Throws when any request broke GitHub's description (call it in afterEach, and after each scenario). */
  assertNoViolations(): void {
    if (this.violations.length > 0) throw new GitHubContractViolation(this.violations);
  }

  /** Issues an installation token as POST /app/installations/{id}/access_tokens would, for tests of callers. */
  issueToken(installationId: number, lifetimeSeconds?: number): { token: string; expiresAt: Date } {
    const token = `ghs_${randomBytes(18).toString("base64url")}`;
    const expiresAt = Date.now() + 1000 * (lifetimeSeconds ?? this.options.tokenLifetimeSeconds ?? 3600);
    this.tokens.set(token, { installationId, expiresAt });
    return { token, expiresAt: new Date(Math.floor(expiresAt / 1000) * 1000) };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://double");
    const raw = await readBody(req);
    const method = (req.method ?? "GET").toUpperCase();
    const what = `${method} ${url.pathname}`;
    const answer = (recorded: RecordedRequest, reply: ScriptedReply) => {
      recorded.status = reply.status;
      recorded.responseBody = reply.body;
      res.writeHead(reply.status, { ...JSON_HEADERS, ...rateHeaders(), ...reply.headers });
      res.end(reply.body === undefined ? "" : JSON.stringify(reply.body));
    };
    const record = (extra: Partial<RecordedRequest>): RecordedRequest => {
      const recorded: RecordedRequest = {
        seq: this.requests.length + 1,
        receivedAt: Date.now(),
        method,
        path: url.pathname.slice(this.basePath.length),
        pathParams: {},
        query: url.searchParams,
        body,
        status: 0,
        ...extra,
      };
      this.requests.push(recorded);
      return recorded;
    };

    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw) as unknown;
      } catch {
        this.violations.push(`${what}: the body is not JSON`);
        return answer(record({}), { status: 400, body: { message: "Problems parsing JSON" } });
      }
    }
    if (!url.pathname.startsWith(`${this.basePath}/`)) {
      this.violations.push(`${what}: outside the API's base path ${this.basePath}`);
      return answer(record({}), notFound());
    }
    const matched = this.description.match(method, url.pathname.slice(this.basePath.length));
    if ("problem" in matched) {
      this.violations.push(`${what}: ${matched.problem}`);
      return answer(record({}), notFound());
    }
    const credential = this.authorise(matched, req.headers.authorization);
    const recorded = record({
      route: `${matched.method} ${matched.template}`,
      operationId: matched.operationId,
      pathParams: matched.pathParams,
      credential: typeof credential === "string" ? undefined : credential.credential,
    });
    if (typeof credential === "string") {
      this.violations.push(`${what}: ${credential}`);
      return answer(recorded, { status: 401, body: { message: "Bad credentials" } });
    }
    const problems = this.checker.check(matched, url.searchParams, body, raw.length > 0);
    if (problems.length > 0) {
      this.violations.push(...problems.map((p) => `${what} (${matched.operationId}): ${p}`));
      return answer(recorded, { status: 422, body: { message: "Invalid request.", errors: problems } });
    }
    const scripted = this.scripted(recorded);
    if (scripted) return answer(recorded, scripted);
    return answer(recorded, this.defaultReply(matched, recorded));
  }

  /** The credential a request carries, or why GitHub would refuse it (only checked when the App is known). */
  private authorise(
    matched: MatchedOperation,
    authorization: string | undefined,
  ): { credential?: number | "app" } | string {
    const app = this.options.app;
    if (!app) return {};
    const [scheme = "", token = ""] = (authorization ?? "").split(" ");
    const appEndpoint =
      matched.template === "/app" ||
      matched.template.startsWith("/app/") ||
      matched.template.endsWith("/installation");
    if (appEndpoint) {
      if (scheme.toLowerCase() !== "bearer")
        return `${matched.operationId} needs the App's JWT as a Bearer token`;
      const problem = appJwtProblem(token, app, Math.floor(Date.now() / 1000));
      return problem ?? { credential: "app" };
    }
    const issued = this.tokens.get(token);
    if (!["token", "bearer"].includes(scheme.toLowerCase()) || !issued)
      return `${matched.operationId} needs an installation token the double issued`;
    if (issued.expiresAt <= Date.now()) return `${matched.operationId} used an expired installation token`;
    const owner = matched.pathParams.owner;
    const repo = matched.pathParams.repo;
    const installation = this.options.installations?.find((i) => i.id === issued.installationId);
    if (installation && owner && repo && !installation.repositories.includes(`${owner}/${repo}`))
      return `installation ${installation.id}'s token used on ${owner}/${repo}, which it does not cover`;
    return { credential: issued.installationId };
  }

  private scripted(recorded: RecordedRequest): ScriptedReply | undefined {
    for (const entry of this.scripts) {
      if (entry.remaining <= 0 || (entry.match !== recorded.operationId && entry.match !== recorded.route))
        continue;
      const reply = typeof entry.script === "function" ? entry.script(recorded) : entry.script;
      if (!reply) continue;
      entry.remaining--;
      return reply;
    }
    return undefined;
  }

  private defaultReply(matched: MatchedOperation, recorded: RecordedRequest): ScriptedReply {
    if (matched.template === "/app/installations/{installation_id}/access_tokens") {
      const id = Number(matched.pathParams.installation_id);
      if (this.options.installations && !this.options.installations.some((i) => i.id === id))
        return notFound();
      const { token, expiresAt } = this.issueToken(id);
      const example = this.description.successResponse(matched.operation);
      return {
        status: example.status,
        body: {
          ...(example.body as object),
          token,
          expires_at: expiresAt.toISOString().replace(".000Z", "Z"),
        },
      };
    }
    const { status, body } = this.description.successResponse(matched.operation);
    return { status, body: status === 201 ? this.created(body, recorded.body) : body };
  }

  /** A created resource: a fresh id, and the request's own scalar fields where the example has the same field. */
  private created(example: unknown, request: unknown): unknown {
    if (example === null || typeof example !== "object" || Array.isArray(example)) return example;
    const result: Record<string, unknown> = { ...(example as Record<string, unknown>) };
    if (typeof result.id === "number") result.id = this.nextId++;
    if (request !== null && typeof request === "object")
      for (const [field, value] of Object.entries(request))
        if (field in result && typeof value !== "object" && typeof value === typeof result[field])
          result[field] = value;
    return result;
  }
}

/** GitHub's answer to a secondary rate limit: 403 with retry-after (seconds) and the message clients look for. */
export function secondaryRateLimit(retryAfterSeconds: number): ScriptedReply {
  return {
    status: 403,
    headers: { "retry-after": String(retryAfterSeconds) },
    body: {
      message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
    },
  };
}

/** GitHub's 429 with retry-after, which it also sends when a client is too fast. */
export function tooManyRequests(retryAfterSeconds: number): ScriptedReply {
  return {
    status: 429,
    headers: { "retry-after": String(retryAfterSeconds) },
    body: { message: "Too Many Requests" },
  };
}

export function serverError(status = 502): ScriptedReply {
  return { status, body: { message: "Server Error" } };
}

function notFound(): ScriptedReply {
  return {
    status: 404,
    body: { message: "Not Found", documentation_url: "https://docs.github.com/rest" },
  };
}

function rateHeaders(): Record<string, string> {
  return {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
    "x-github-request-id": randomBytes(8).toString("hex").toUpperCase(),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
