import { Ajv, type ValidateFunction } from "ajv8";
import type { GitHubDescription, MatchedOperation } from "./github-description.js";

/**
 * Formats GitHub's description uses that a request may carry. Unknown formats (int64, repo.nwo, ...) are
 * ignored: they constrain nothing a JSON value can break.
 */
const FORMATS: Record<string, (value: string) => boolean> = {
  "date-time": (v) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(v) &&
    !Number.isNaN(Date.parse(v)),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v),
  uri: (v) => URL.canParse(v),
  email: (v) => /^[^\s@]+@[^\s@]+$/.test(v),
};

const COMPONENTS_ID = "github-components";

/**
 * Checks a request against its operation: every required path/query parameter present, every parameter and the
 * JSON body valid against their schemas, no query parameter or top-level body field the operation does not
 * declare (GitHub ignores those silently, which hides a misspelt field). Returns the problems, empty when the
 * description allows the request.
 */
export class RequestChecker {
  // The description is OpenAPI 3.0 (draft-04-ish schemas with `nullable`), which ajv's default draft reads;
  // strict is off because the description carries documentation keywords (example, x-github, ...).
  private readonly bodies = new Ajv({ allErrors: true, strict: false, logger: false, formats: FORMATS });
  // Parameters arrive as strings; coercion turns "42" into the integer a schema asks for, like GitHub does.
  private readonly params = new Ajv({
    allErrors: true,
    strict: false,
    logger: false,
    coerceTypes: "array",
    formats: FORMATS,
  });
  private readonly cache = new Map<string, { params: ValidateFunction; body?: ValidateFunction }>();

  constructor(private readonly description: GitHubDescription) {
    const components = { components: { schemas: description.document.components.schemas } };
    this.bodies.addSchema(components, COMPONENTS_ID);
    this.params.addSchema(components, COMPONENTS_ID);
  }

  check(matched: MatchedOperation, query: URLSearchParams, body: unknown, hasBody: boolean): string[] {
    const problems: string[] = [];
    const validators = this.validators(matched);
    const declared = this.description.parameters(matched.operation);
    const values: Record<string, unknown> = { ...matched.pathParams };
    for (const name of new Set(query.keys())) {
      const parameter = declared.find((p) => p.in === "query" && p.name === name);
      if (!parameter) problems.push(`query parameter "${name}" is not declared for ${matched.operationId}`);
      else values[name] = query.getAll(name).length > 1 ? query.getAll(name) : query.get(name);
    }
    if (!validators.params(values))
      problems.push(`parameters: ${this.params.errorsText(validators.params.errors)}`);

    const content = matched.operation.requestBody?.content;
    if (!content) {
      if (hasBody) problems.push(`${matched.operationId} takes no request body`);
      return problems;
    }
    if (!hasBody) {
      if (matched.operation.requestBody?.required)
        problems.push(`${matched.operationId} requires a JSON body`);
      return problems;
    }
    if (validators.body && !validators.body(body))
      problems.push(`body: ${this.bodies.errorsText(validators.body.errors, { dataVar: "body" })}`);
    const schema = this.description.resolve(content["application/json"]?.schema as { $ref: string }) as
      { properties?: Record<string, unknown> } | undefined;
    if (schema?.properties && body !== null && typeof body === "object" && !Array.isArray(body))
      for (const field of Object.keys(body))
        if (!(field in schema.properties))
          problems.push(`body field "${field}" is not declared for ${matched.operationId}`);
    return problems;
  }

  private validators(matched: MatchedOperation): { params: ValidateFunction; body?: ValidateFunction } {
    const key = `${matched.method} ${matched.template}`;
    let found = this.cache.get(key);
    if (!found) {
      const declared = this.description.parameters(matched.operation).filter((p) => p.in !== "header");
      const paramsSchema = {
        type: "object",
        properties: Object.fromEntries(declared.map((p) => [p.name, anchored(p.schema ?? {})])),
        required: declared.filter((p) => p.required || p.in === "path").map((p) => p.name),
      };
      const bodySchema = matched.operation.requestBody?.content?.["application/json"]?.schema;
      found = {
        params: this.params.compile(paramsSchema),
        body: bodySchema === undefined ? undefined : this.bodies.compile(anchored(bodySchema) as object),
      };
      this.cache.set(key, found);
    }
    return found;
  }
}

/** An operation's schema with its "#/components/..." references pointed at the components registered in ajv. */
function anchored(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${COMPONENTS_ID}#/`)) as unknown;
}
