import { expect } from "chai";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { FlakyServiceProcess } from "../flaky/flaky-service-process.js";

/** The part of a JSON Schema (as the API document writes it) the walk reads. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
}
interface Operation {
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface NumericField {
  method: string;
  path: string;
  in: "body" | "query";
  field: string[];
  maximum: number | undefined;
}

const LARGEST = Number.MAX_SAFE_INTEGER;
const isNumeric = (s: Schema) => s.type === "integer" || s.type === "number";

/** Every integer or number a request may carry: body fields (nested, through unions and arrays) and query parameters. */
function numericFields(paths: Record<string, Record<string, Operation>>): NumericField[] {
  const found: NumericField[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(operations)) {
      const walk = (s: Schema, field: string[]) => {
        if (isNumeric(s)) found.push({ method, path, in: "body", field, maximum: s.maximum });
        for (const alternative of s.anyOf ?? []) walk(alternative, field);
        for (const [name, property] of Object.entries(s.properties ?? {})) walk(property, [...field, name]);
      };
      const body = op.requestBody?.content["application/json"]?.schema;
      if (body) walk(body, []);
      for (const p of op.parameters ?? []) {
        if (p.in === "query" && isNumeric(p.schema))
          found.push({ method, path, in: "query", field: [p.name], maximum: p.schema.maximum });
      }
    }
  }
  return found;
}

/** A value the schema accepts, so that the one field set out of range is the request's only fault. */
function validSample(s: Schema, keep: string[] = []): unknown {
  if (s.anyOf) {
    const own = s.anyOf.find((alternative) => alternative.type !== "null") ?? s.anyOf[0]!;
    return validSample(own, keep);
  }
  if (s.enum) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const names = new Set([...(s.required ?? []), ...keep.slice(0, 1)]);
      return Object.fromEntries(
        [...names].map((name) => [
          name,
          validSample(s.properties?.[name] ?? {}, name === keep[0] ? keep.slice(1) : []),
        ]),
      );
    }
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => validSample(s.items ?? {}));
    case "integer":
      return s.minimum ?? 1;
    case "number":
      return s.maximum ?? 1;
    case "boolean":
      return false;
    case "string":
      return sampleString(s);
    default:
      return {};
  }
}

function sampleString(s: Schema): string {
  if (s.format === "date-time") return new Date().toISOString();
  if (s.format === "uri") return "https://github.com/acme/widgets";
  // "main" is a branch, a host, an owner, a name and a slug; hex is a commit sha; digits a PR number.
  const candidates = ["main", "a".repeat(40), "1"];
  return candidates.find((c) => !s.pattern || new RegExp(s.pattern, "u").test(c)) ?? "main";
}

function withValue(sample: unknown, field: string[], value: number): unknown {
  const copy = structuredClone(sample) as Record<string, unknown>;
  let at = copy;
  for (const name of field.slice(0, -1)) at = at[name] as Record<string, unknown>;
  at[field[field.length - 1]!] = value;
  return copy;
}

describe("gateway: every number a request carries has an upper bound (issue 24)", function () {
  this.timeout(60_000);
  let flaky: FlakyServiceProcess;
  let gw: GatewayHarness;
  let admin: string;
  let paths: Record<string, Record<string, Operation>>;
  let fields: NumericField[];

  before(async () => {
    flaky = await FlakyServiceProcess.start();
    gw = await GatewayHarness.start({ flaky: flaky.address });
    await gw.auth.createOrganization("acme", "acme");
    admin = (await gw.auth.createToken("acme", "bounds", true)).token;
    ({ paths } = (await (await gw.get("/openapi.json")).json()) as { paths: typeof paths });
    fields = numericFields(paths);
  });
  after(async () => {
    await gw?.stop();
    await flaky?.stop();
  });

  it("finds the numeric fields, the flaky-test settings among them", () => {
    const names = fields.map((f) => `${f.path} ${f.field.join(".")}`);
    expect(names).to.include.members([
      "/flaky-tests/update-repository-settings min_runs",
      "/flaky-tests/update-repository-settings rate_window_hours",
      "/flaky-tests/update-repository-settings recovery_window_hours",
      "/flaky-tests/update-repository-settings broken_after_consecutive_failures",
      "/createQueue concurrency",
      "/submitPullRequest pr.number",
    ]);
  });

  it("documents a maximum for each", () => {
    const unbounded = fields.filter((f) => f.maximum === undefined);
    expect(unbounded.map((f) => `${f.method} ${f.path} ${f.field.join(".")}`)).to.deep.equal([]);
  });

  it(`answers ${LARGEST} in any of them with 400 naming the field, or takes it where the bound allows it`, async () => {
    const problems: string[] = [];
    for (const f of fields) {
      const name = f.field.join(".");
      const op = paths[f.path]![f.method]!;
      const schema = op.requestBody?.content["application/json"]?.schema ?? {};
      const query = Object.fromEntries(
        (op.parameters ?? [])
          .filter((p) => p.in === "query" && p.required)
          .map((p) => [p.name, String(validSample(p.schema))]),
      );
      const response =
        f.in === "query"
          ? await gw.request(f.method, f.path, { token: admin, query: { ...query, [name]: String(LARGEST) } })
          : await gw.request(f.method, f.path, {
              token: admin,
              body: withValue(validSample(schema, f.field), f.field, LARGEST),
            });
      const text = await response.text();
      const where = `${f.method.toUpperCase()} ${f.path} ${name}: ${response.status} ${text}`;
      if ((f.maximum ?? Infinity) < LARGEST) {
        if (response.status !== 400 || !text.startsWith(`${name}: `)) problems.push(where);
      } else if (response.status >= 500 && response.status !== 503) {
        // In range: whatever the service answers (503 when this test runs no such upstream), never a 500.
        problems.push(where);
      }
    }
    expect(problems).to.deep.equal([]);
  });
});
