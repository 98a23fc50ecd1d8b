import { z } from "zod";
import type { Endpoint } from "./endpoint.js";

const TEXT_ERROR = { "text/plain": { schema: { type: "string" } } };

/**
 * The OpenAPI 3.1 document, built from the same zod schemas that validate requests, so the two cannot drift.
 * OpenAPI 3.1 uses JSON Schema 2020-12, which is what zod emits.
 */
export function buildOpenApi(endpoints: readonly Endpoint[], serverUrl = "/v1"): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of endpoints) {
    const inputSchema = strip(
      z.toJSONSchema(e.input, { target: "draft-2020-12", io: "input", unrepresentable: "any" }),
    );
    const operation: Record<string, unknown> = {
      operationId: e.operationId,
      summary: e.summary,
      tags: [e.tag],
      security: e.access === "public" ? [] : [{ apiToken: [] }],
      responses: {
        [String(e.status ?? 200)]: {
          description: "Success",
          content:
            "text" in e.output
              ? { [e.output.text]: { schema: { type: "string" } } }
              : {
                  "application/json": {
                    schema: strip(
                      z.toJSONSchema(e.output, {
                        target: "draft-2020-12",
                        io: "output",
                        unrepresentable: "any",
                      }),
                    ),
                  },
                },
        },
        "400": { description: "Invalid request: the body names the field and the rule", content: TEXT_ERROR },
        ...(e.access === "public"
          ? {}
          : {
              "401": {
                description: "Missing or invalid x-api-token",
                content: { "application/plain-text": { schema: { type: "string" } } },
              },
            }),
        "404": { description: "Not found", content: TEXT_ERROR },
        "409": { description: "Conflict with the current state", content: TEXT_ERROR },
        ...(e.inputIn === "body"
          ? {
              "413": { description: "Body over 20 MiB", content: TEXT_ERROR },
              "415": { description: "Body is not JSON", content: TEXT_ERROR },
            }
          : {}),
      },
    };
    if (e.inputIn === "body") {
      operation.requestBody = { required: true, content: { "application/json": { schema: inputSchema } } };
    } else {
      const properties = (inputSchema.properties ?? {}) as Record<string, unknown>;
      const required = new Set((inputSchema.required as string[] | undefined) ?? []);
      operation.parameters = Object.entries(properties).map(([name, schema]) => ({
        name,
        in: "query",
        required: required.has(name),
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
    components: { securitySchemes: { apiToken: { type: "apiKey", in: "header", name: "x-api-token" } } },
    paths,
  };
}

function strip(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
