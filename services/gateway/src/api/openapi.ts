import { z } from "zod";
import type { Endpoint } from "./endpoint.js";

const TEXT_ERROR = { "text/plain": { schema: { type: "string" } } };

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request: the body names the field and the rule",
  403: "The token may not do this (an admin token is needed, or another organisation is named), or a session-cookie call lacks its x-csrf-token header",
  404: "Not found (or not visible to the token's organisation)",
  409: "Conflict with the current state",
  413: "Body over 20 MiB",
  415: "Body is not JSON",
  501: "A service behind the gateway does not know this call yet (a rolling upgrade in progress)",
  503: "A service behind the gateway is unavailable; try again",
  504: "A service behind the gateway did not answer in time; try again",
};

const jsonSchemaOf = (schema: z.ZodType, io: "input" | "output") =>
  strip(z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }));

/**
 * The OpenAPI 3.1 document, built from the same zod schemas that validate requests, so the two cannot drift.
 * OpenAPI 3.1 uses JSON Schema 2020-12, which is what zod emits. Every status a handler can answer is declared:
 * the integration tests check each response they receive against this document.
 */
export function buildOpenApi(endpoints: readonly Endpoint[], serverUrl = "/v1"): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = { ...fixedPaths() };
  for (const e of endpoints) {
    const inputSchema = jsonSchemaOf(e.input, "input");
    const errorStatuses = new Set([
      400,
      404,
      409,
      501,
      503,
      504,
      // 403: an admin operation with an ordinary token, or a session-cookie call without its CSRF header.
      ...(e.access === "public" ? [] : [403]),
      ...(e.inputIn === "body" ? [413, 415] : []),
      // 401 is declared below with the spec's own content type.
      ...(e.errors ?? []).filter((status) => status !== 401),
    ]);
    const operation: Record<string, unknown> = {
      operationId: e.operationId,
      summary: e.summary,
      tags: [e.tag],
      security: e.access === "public" ? [] : [{ apiToken: [] }, { webSession: [] }],
      responses: {
        [String(e.status ?? 200)]: {
          description: "Success",
          content:
            "text" in e.output
              ? { [e.output.text]: { schema: { type: "string" } } }
              : { "application/json": { schema: jsonSchemaOf(e.output, "output") } },
        },
        ...(e.access === "public" && !e.errors?.includes(401)
          ? {}
          : {
              // The spec declares its 401 body as `application/plain-text`.
              "401": {
                description: "Missing or invalid x-api-token (or code-host signature)",
                content: { "application/plain-text": { schema: { type: "string" } } },
              },
            }),
        ...Object.fromEntries(
          [...errorStatuses]
            .sort((a, b) => a - b)
            .map((status) => [
              String(status),
              { description: ERROR_DESCRIPTIONS[status] ?? "Error", content: TEXT_ERROR },
            ]),
        ),
      },
    };
    if (e.inputIn === "body") {
      operation.requestBody = { required: true, content: { "application/json": { schema: inputSchema } } };
    } else {
      const properties = (inputSchema.properties ?? {}) as Record<string, unknown>;
      const required = new Set((inputSchema.required as string[] | undefined) ?? []);
      operation.parameters = Object.entries(properties).map(([name, schema]) => ({
        name,
        in: e.inputIn,
        required: e.inputIn === "path" || required.has(name),
        schema,
      }));
    }
    (paths[e.path] ??= {})[e.method] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Mainline API",
      version: "1.0.0",
      description:
        "Merge queue and flaky-test API. Errors are plain-text bodies naming the field and the rule.",
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        apiToken: { type: "apiKey", in: "header", name: "x-api-token" },
        // The web page's session (POST /ui/session); calls other than GET also need its x-csrf-token header.
        webSession: { type: "apiKey", in: "cookie", name: "mainline_session" },
      },
    },
    paths,
  };
}

/** The routes that are not endpoints (health, this document), so that every /v1 answer is described. */
function fixedPaths(): Record<string, Record<string, unknown>> {
  const health = (description: string, extra: Record<string, unknown> = {}) => ({
    type: "object",
    required: ["status", ...Object.keys(extra)],
    properties: { status: { type: "string" }, ...extra },
    description,
  });
  const readiness = health("Readiness", { failing: { type: "array", items: { type: "string" } } });
  const json = (schema: unknown) => ({ "application/json": { schema } });
  return {
    "/healthz": {
      get: {
        operationId: "liveness",
        summary: "The process is alive",
        tags: ["Health"],
        security: [],
        responses: { "200": { description: "Alive", content: json(health("Liveness")) } },
      },
    },
    "/readyz": {
      get: {
        operationId: "readiness",
        summary: "Every service behind the gateway answers SERVING",
        tags: ["Health"],
        security: [],
        responses: {
          "200": { description: "Ready", content: json(readiness) },
          "503": { description: "Some service is not ready; `failing` names it", content: json(readiness) },
        },
      },
    },
    "/openapi.json": {
      get: {
        operationId: "getOpenApiDocument",
        summary: "This document",
        tags: ["Health"],
        security: [],
        responses: { "200": { description: "OpenAPI 3.1", content: json({ type: "object" }) } },
      },
    },
  };
}

function strip(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
