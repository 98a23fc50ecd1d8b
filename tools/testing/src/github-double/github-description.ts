import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

/** Which of GitHub's published descriptions the double speaks: github.com or an Enterprise Server release. */
export type GitHubFlavour = "api.github.com" | "ghes-3.19" | "ghes-3.18" | "ghes-3.17";

export interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  schema?: unknown;
}
export interface MediaTypeObject {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value?: unknown; $ref?: string }>;
}
export interface OperationObject {
  operationId?: string;
  parameters?: (ParameterObject | { $ref: string })[];
  requestBody?: { required?: boolean; content?: Record<string, MediaTypeObject> };
  responses?: Record<string, { content?: Record<string, MediaTypeObject>; $ref?: string }>;
}
export interface GitHubOpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: Record<string, Record<string, unknown>>;
}

/** One operation of the description, found by method and path template. */
export interface MatchedOperation {
  readonly method: string;
  readonly template: string;
  readonly operationId: string;
  readonly operation: OperationObject;
  readonly pathParams: Record<string, string>;
}

interface Route {
  readonly template: string;
  readonly segments: readonly string[];
  /** Literal segments win over parameters: /pulls/comments is not pull number "comments". */
  readonly literals: number;
}

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"];
const loaded = new Map<GitHubFlavour, Promise<GitHubOpenApiDocument>>();

/** GitHub's own OpenAPI description from @octokit/openapi, read once per process (the files are 11-13 MB). */
export function loadGitHubDescription(flavour: GitHubFlavour): Promise<GitHubOpenApiDocument> {
  let document = loaded.get(flavour);
  if (!document) {
    const require = createRequire(import.meta.url);
    const packageDir = path.dirname(require.resolve("@octokit/openapi/package.json"));
    document = readFile(path.join(packageDir, "generated", `${flavour}.json`), "utf8").then(
      (text) => JSON.parse(text) as GitHubOpenApiDocument,
    );
    loaded.set(flavour, document);
  }
  return document;
}

/** The description the double loads for an API URL: Enterprise Server's when it ends in /api/v3. */
export function flavourForApiUrl(apiUrl: string): GitHubFlavour {
  return /\/api\/v3\/?$/.test(new URL(apiUrl).pathname) ? "ghes-3.19" : "api.github.com";
}

/** Method + path template lookup and $ref resolution over one description. */
export class GitHubDescription {
  private readonly routes: Route[];

  constructor(readonly document: GitHubOpenApiDocument) {
    this.routes = Object.keys(document.paths).map((template) => {
      const segments = template.split("/").slice(1);
      return { template, segments, literals: segments.filter((s) => !s.startsWith("{")).length };
    });
  }

  /** The operation for a request path (without the API's base path), or why there is none. */
  match(method: string, pathname: string): MatchedOperation | { problem: string } {
    const parts = pathname.split("/").slice(1);
    let best: { route: Route; params: Record<string, string> } | undefined;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const fits = route.segments.every((segment, i) => {
        const part = parts[i] ?? "";
        if (segment.startsWith("{") && segment.endsWith("}")) {
          params[segment.slice(1, -1)] = decodeURIComponent(part);
          return part !== "";
        }
        return segment === part;
      });
      if (fits && (!best || route.literals > best.route.literals)) best = { route, params };
    }
    if (!best) return { problem: `no path of GitHub's description matches ${pathname}` };
    const lower = method.toLowerCase();
    const operation = this.document.paths[best.route.template]?.[lower];
    if (!operation || !METHODS.includes(lower)) {
      const allowed = Object.keys(this.document.paths[best.route.template] ?? {}).filter((m) =>
        METHODS.includes(m),
      );
      return {
        problem: `${method.toUpperCase()} is not an operation of ${best.route.template} (it has ${allowed.join(", ")})`,
      };
    }
    return {
      method: method.toUpperCase(),
      template: best.route.template,
      operationId: operation.operationId ?? `${lower} ${best.route.template}`,
      operation,
      pathParams: best.params,
    };
  }

  /** Follows a local "#/components/..." reference (and references to references). */
  resolve<T>(value: T | { $ref: string }): T {
    let current: unknown = value;
    for (let hops = 0; hops < 10; hops++) {
      const ref = (current as { $ref?: unknown } | undefined)?.$ref;
      if (typeof ref !== "string") return current as T;
      current = ref
        .replace(/^#\//, "")
        .split("/")
        .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], this.document);
    }
    throw new Error(`reference loop at ${JSON.stringify(value)}`);
  }

  parameters(operation: OperationObject): ParameterObject[] {
    return (operation.parameters ?? []).map((p) => this.resolve<ParameterObject>(p));
  }

  /**
   * The lowest 2xx status the operation declares and the description's first example for it, which is what
   * the double answers when a test has scripted nothing else.
   */
  successResponse(operation: OperationObject): { status: number; body: unknown } {
    const status = Object.keys(operation.responses ?? {})
      .filter((s) => /^2\d\d$/.test(s))
      .sort()[0];
    if (!status) return { status: 200, body: undefined };
    const response = this.resolve(operation.responses?.[status] ?? {});
    const media = response.content?.["application/json"];
    if (!media) return { status: Number(status), body: undefined };
    if (media.example !== undefined) return { status: Number(status), body: media.example };
    const first = Object.values(media.examples ?? {})[0];
    const example = first ? this.resolve<{ value?: unknown }>(first) : undefined;
    return { status: Number(status), body: example?.value ?? {} };
  }
}
