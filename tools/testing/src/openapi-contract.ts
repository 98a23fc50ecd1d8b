import { Ajv2020, type ValidateFunction } from "ajv8/dist/2020.js";

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  security?: unknown[];
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

/**
 * The declared content entry a response's Content-Type falls under: same media type (or a declared range such
 * as text/*), and every parameter the key names (e.g. Prometheus' version=0.0.4) present with the same value.
 */
function declaredMedia(declared: Record<string, MediaType>, contentType: string): MediaType | undefined {
  const parse = (value: string) => {
    const [type = "", ...params] = value.split(";").map((part) => part.trim().toLowerCase());
    return {
      type,
      params: new Map(params.map((p) => p.split("=").map((x) => x.trim()) as [string, string])),
    };
  };
  const actual = parse(contentType);
  for (const [key, media] of Object.entries(declared)) {
    const wanted = parse(key);
    const typeMatches =
      wanted.type === actual.type ||
      wanted.type === "*/*" ||
      (wanted.type.endsWith("/*") && actual.type.startsWith(wanted.type.slice(0, -1)));
    if (typeMatches && [...wanted.params].every(([name, value]) => actual.params.get(name) === value))
      return media;
  }
  return undefined;
}

/** A response the API document does not describe: a bug in the handler or in the document. */
export class ContractViolation extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContractViolation";
  }
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

/**
 * Formats zod writes into the document. ajv knows none by itself (ajv-formats would be a second ajv); these
 * checks are as strict as the ones zod applies on the way in.
 */
const FORMATS: Record<string, (value: string) => boolean> = {
  "date-time": (v) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(v) &&
    !Number.isNaN(Date.parse(v)),
  uri: (v) => URL.canParse(v),
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  email: (v) => /^[^\s@]+@[^\s@]+$/.test(v),
};

/**
 * The API as GET /v1/openapi.json describes it, used by tests to check every response they receive: the status
 * is declared for the operation, the content type is one the operation declares for that status, and a JSON
 * body matches its schema. A request to a path or method the document does not have must be refused with
 * 404 / 405 in plain text.
 */
export class OpenApiContract {
  // strictSchema: a keyword or format ajv does not know is a broken document, not something to skip quietly.
  private readonly ajv = new Ajv2020({
    allErrors: true,
    strictSchema: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    formats: FORMATS,
  });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: { pattern: RegExp; path: string }[];
  readonly basePath: string;

  constructor(readonly document: OpenApiDocument) {
    if (!/^3\.1\./.test(document.openapi))
      throw new ContractViolation(`expected an OpenAPI 3.1 document, got ${document.openapi}`);
    this.basePath = (document.servers?.[0]?.url ?? "").replace(/\/$/, "");
    this.routes = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
  }

  static async load(apiUrl: string): Promise<OpenApiContract> {
    const response = await fetch(`${apiUrl}/openapi.json`);
    if (response.status !== 200)
      throw new ContractViolation(`GET ${apiUrl}/openapi.json answered ${response.status}`);
    return new OpenApiContract((await response.json()) as OpenApiDocument);
  }

  /** Every operation, for tests that must cover each one (a new endpoint then fails them until covered). */
  operations(): { method: string; path: string; operationId: string; public: boolean }[] {
    return Object.entries(this.document.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((method) => {
        const op = item[method] as Operation;
        return {
          method,
          path,
          operationId: op.operationId ?? `${method} ${path}`,
          public: Array.isArray(op.security) && op.security.length === 0,
        };
      }),
    );
  }

  /** Compiles every response schema, so a schema ajv cannot read fails at once rather than on first use. */
  compileAll(): number {
    let count = 0;
    for (const [path, item] of Object.entries(this.document.paths))
      for (const [method, op] of Object.entries(item))
        for (const [status, response] of Object.entries(op.responses ?? {}))
          for (const [mediaType, media] of Object.entries(response.content ?? {}))
            if (media.schema !== undefined) {
              this.validator(`${path} ${method} ${status} ${mediaType}`, media.schema);
              count++;
            }
    return count;
  }

  /**
   * Throws a ContractViolation when the response is not what the document declares. `pathname` is the URL path
   * as requested (with the /v1 prefix); paths outside the API's base are not the document's business.
   */
  check(method: string, pathname: string, status: number, contentType: string | null, body: string): void {
    if (!pathname.startsWith(`${this.basePath}/`)) return;
    const path = pathname.slice(this.basePath.length);
    const what = `${method.toUpperCase()} ${pathname} -> ${status}`;
    const mediaType = (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    const route = this.routes.find((r) => r.pattern.test(path));
    const operation = route ? this.document.paths[route.path]?.[method.toLowerCase()] : undefined;
    if (!operation) {
      const expected = route ? 405 : 404;
      if (status !== expected || mediaType !== "text/plain")
        throw new ContractViolation(
          `${what} (${mediaType || "no content type"}): ${route ? "the method" : "the path"} is not in the ` +
            `OpenAPI document, so the answer must be ${expected} in text/plain`,
        );
      return;
    }
    const responses = operation.responses ?? {};
    const key = [String(status), `${String(status).charAt(0)}XX`, "default"].find((k) => responses[k]);
    if (!key)
      throw new ContractViolation(
        `${what}: status ${status} is not declared for ${operation.operationId} ` +
          `(declared: ${Object.keys(responses).join(", ")}); body: ${body.slice(0, 300)}`,
      );
    const declared = responses[key]?.content;
    if (!declared || Object.keys(declared).length === 0) {
      if (body !== "") throw new ContractViolation(`${what}: no content is declared, but a body came`);
      return;
    }
    const media = declaredMedia(declared, contentType ?? "");
    if (!media)
      throw new ContractViolation(
        `${what}: content type ${mediaType || "(none)"} is not declared (declared: ${Object.keys(declared).join(", ")})`,
      );
    if (media.schema === undefined) return;
    const isJson = mediaType === "application/json" || mediaType.endsWith("+json");
    let value: unknown = body;
    if (isJson) {
      try {
        value = JSON.parse(body) as unknown;
      } catch {
        throw new ContractViolation(`${what}: the body is not JSON: ${body.slice(0, 300)}`);
      }
    }
    const validate = this.validator(`${route?.path} ${method} ${key} ${mediaType}`, media.schema);
    if (!validate(value))
      throw new ContractViolation(
        `${what}: the body does not match the declared schema: ${this.ajv.errorsText(validate.errors)}; ` +
          `body: ${body.slice(0, 500)}`,
      );
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema as object);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

/**
 * A fetch that checks every answer from the API against the contract before handing it back (with its body
 * still readable). The document is fetched once, on first use.
 */
export type CheckedFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  contract(): Promise<OpenApiContract>;
};

export function contractCheckedFetch(apiUrl: string): CheckedFetch {
  let loading: Promise<OpenApiContract> | undefined;
  const contract = () => (loading ??= OpenApiContract.load(apiUrl));
  const checked = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const body = await response.clone().text();
    (await contract()).check(
      request.method,
      new URL(request.url).pathname,
      response.status,
      response.headers.get("content-type"),
      body,
    );
    return response;
  };
  return Object.assign(checked, { contract });
}
