import { expect } from "chai";
import { ContractViolation, OpenApiContract } from "@mainline/testing";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

/** A small document in the shape ours has, so each kind of mismatch can be provoked on purpose. */
const document = {
  openapi: "3.1.0",
  servers: [{ url: "/v1" }],
  paths: {
    "/getThing": {
      post: {
        operationId: "getThing",
        responses: {
          "200": {
            description: "ok",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["id", "at"],
                  properties: { id: { type: "string" }, at: { type: "string", format: "date-time" } },
                  additionalProperties: false,
                },
              },
            },
          },
          "404": { description: "missing", content: { "text/plain": { schema: { type: "string" } } } },
        },
      },
    },
  },
};

describe("OpenAPI contract check of responses", () => {
  const contract = new OpenApiContract(document);
  const ok = JSON.stringify({ id: "a", at: "2026-01-02T03:04:05.000Z" });
  const violation = (...args: Parameters<OpenApiContract["check"]>) => {
    try {
      contract.check(...args);
    } catch (error) {
      expect(error).to.be.instanceOf(ContractViolation);
      return (error as Error).message;
    }
    throw new Error("expected a contract violation");
  };

  it("accepts a response the document describes", () => {
    contract.check("POST", "/v1/getThing", 200, "application/json; charset=utf-8", ok);
    contract.check("POST", "/v1/getThing", 404, "text/plain; charset=utf-8", "no such thing");
  });

  it("refuses a status the operation does not declare", () => {
    expect(violation("POST", "/v1/getThing", 500, "text/plain", "boom")).to.match(
      /status 500 is not declared for getThing \(declared: 200, 404\)/,
    );
  });

  it("matches declared media type parameters (Prometheus' version=0.0.4), and refuses a missing one", () => {
    const prometheus = new OpenApiContract({
      ...document,
      paths: {
        "/metrics": {
          get: {
            operationId: "metrics",
            responses: {
              "200": {
                content: { "text/plain; version=0.0.4; charset=utf-8": { schema: { type: "string" } } },
              },
            },
          },
        },
      },
    });
    prometheus.check("GET", "/v1/metrics", 200, "text/plain; version=0.0.4; charset=utf-8", "up 1\n");
    prometheus.check("GET", "/v1/metrics", 200, "text/plain;charset=UTF-8;version=0.0.4", "up 1\n");
    expect(() => prometheus.check("GET", "/v1/metrics", 200, "text/plain; charset=utf-8", "up 1\n")).to.throw(
      ContractViolation,
      /content type text\/plain is not declared/,
    );
  });

  it("refuses a content type the status does not declare", () => {
    expect(violation("POST", "/v1/getThing", 404, "application/json", "{}")).to.match(
      /content type application\/json is not declared \(declared: text\/plain\)/,
    );
  });

  it("refuses a JSON body that misses a required field, has an extra one, or breaks a format", () => {
    expect(violation("POST", "/v1/getThing", 200, "application/json", JSON.stringify({ id: "a" }))).to.match(
      /must have required property 'at'/,
    );
    expect(
      violation(
        "POST",
        "/v1/getThing",
        200,
        "application/json",
        JSON.stringify({ id: "a", at: "2026-01-02T03:04:05Z", x: 1 }),
      ),
    ).to.match(/must NOT have additional properties/);
    expect(
      violation(
        "POST",
        "/v1/getThing",
        200,
        "application/json",
        JSON.stringify({ id: "a", at: "yesterday" }),
      ),
    ).to.match(/must match format "date-time"/);
    expect(violation("POST", "/v1/getThing", 200, "application/json", "not json")).to.match(
      /body is not JSON/,
    );
  });

  it("requires 404 / 405 in plain text for paths and methods the document does not have", () => {
    contract.check("POST", "/v1/nothing", 404, "text/plain", "No endpoint");
    contract.check("GET", "/v1/getThing", 405, "text/plain", "Method not allowed");
    expect(violation("POST", "/v1/nothing", 200, "application/json", "{}")).to.match(
      /must be 404 in text\/plain/,
    );
    expect(violation("DELETE", "/v1/getThing", 404, "text/plain", "")).to.match(/must be 405/);
  });

  it("lists every operation with whether it needs a token", () => {
    expect(contract.operations()).to.deep.equal([
      { method: "post", path: "/getThing", operationId: "getThing", public: false },
    ]);
  });

  describe("the gateway's own document", () => {
    let gw: GatewayHarness;
    before(async () => {
      gw = await GatewayHarness.start();
    });
    after(() => gw.stop());

    it("is OpenAPI 3.1 whose every response schema compiles as JSON Schema 2020-12", async () => {
      const live = await gw.contract();
      expect(live.document.openapi).to.equal("3.1.0");
      expect(live.compileAll()).to.be.greaterThan(100);
    });

    it("gives every operation a unique operationId and declares 401 on every one that needs a token", async () => {
      const live = await gw.contract();
      const ids = live.operations().map((o) => o.operationId);
      expect(new Set(ids).size).to.equal(ids.length);
      const guarded = live.operations().filter((o) => !o.public);
      expect(guarded.length, "operations that need a token").to.be.greaterThan(40);
      for (const op of guarded) {
        const responses = live.document.paths[op.path]?.[op.method]?.responses ?? {};
        expect(responses, op.operationId).to.have.property("401");
      }
    });

    it("checks the harness's own requests: health and the document itself are described too", async () => {
      expect((await gw.get("/healthz")).status).to.equal(200);
      expect((await gw.get("/readyz")).status).to.equal(200);
      expect((await gw.get("/openapi.json")).status).to.equal(200);
      // The unknown path gets the one answer the contract allows for it.
      expect((await gw.get("/no-such-path")).status).to.equal(404);
      expect((await gw.request("PUT", "/getQueue")).status).to.equal(405);
    });
  });
});
