import { expect } from "chai";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { emitterEventNames } from "@octokit/webhooks";
import { SUBSCRIBED_EVENTS } from "@mainline/gateway/github/github-webhook-handler";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

interface Manifest {
  hook_attributes: { url: string };
  default_permissions: Record<string, string>;
  default_events: string[];
}

/** The manifest that creates Mainline's GitHub App asks for what the integration uses, in GitHub's own terms. */
describe("the GitHub App manifest (deploy/github/app-manifest.json)", () => {
  let manifest: Manifest;
  let text: string;
  before(async () => {
    text = await readFile(path.join(root, "deploy/github/app-manifest.json"), "utf8");
    manifest = JSON.parse(text) as Manifest;
  });

  it("subscribes to exactly the events the gateway acts on, each an event GitHub sends", () => {
    expect([...manifest.default_events].sort()).to.deep.equal([...SUBSCRIBED_EVENTS].sort());
    for (const event of manifest.default_events) expect(emitterEventNames, event).to.include(event);
  });

  it("asks only for permissions GitHub's OpenAPI description knows, at levels it allows", () => {
    const description = createRequire(import.meta.url)("@octokit/openapi/generated/api.github.com.json") as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
    };
    const known = description.components.schemas["app-permissions"]!.properties;
    for (const [permission, level] of Object.entries(manifest.default_permissions)) {
      expect(known, permission).to.have.property(permission);
      expect(known[permission]!.enum, permission).to.include(level);
    }
    // Writes Mainline makes: test branches and merges, merges through the API, comments, check runs.
    expect(manifest.default_permissions).to.include({
      contents: "write",
      pull_requests: "write",
      issues: "write",
      checks: "write",
    });
  });

  it("points GitHub at the gateway's webhook route", () => {
    expect(new URL(manifest.hook_attributes.url).pathname).to.equal("/v1/github/webhooks");
  });

  it("is followed in docs/github-app.md by GitHub's code-conversion call, which returns the App's id, key and secret", async () => {
    const readme = await readFile(path.join(root, "docs/github-app.md"), "utf8");
    const call =
      /curl -sX POST [^\n]*\\\n\s+https:\/\/api\.github\.com(\/app-manifests\/<code>\/conversions)/.exec(
        readme,
      );
    expect(call, "the conversion call in the README").to.not.equal(null);
    const description = createRequire(import.meta.url)("@octokit/openapi/generated/api.github.com.json") as {
      paths: Record<
        string,
        {
          post?: {
            responses: Record<
              string,
              { content: Record<string, { schema: { allOf: { required?: string[] }[] } }> }
            >;
          };
        }
      >;
    };
    const conversion = description.paths[call![1]!.replace("<code>", "{code}")]?.post;
    expect(conversion, "POST /app-manifests/{code}/conversions in GitHub's OpenAPI").to.not.equal(undefined);
    const created = conversion!.responses["201"]!.content["application/json"]!.schema;
    expect(created.allOf.flatMap((part) => part.required ?? [])).to.include.members([
      "pem",
      "webhook_secret",
    ]);
    expect(readme)
      .to.include("github.appId")
      .and.to.include("github.privateKey")
      .and.to.include("github.webhookSecret");
  });

  it("is shown in docs/github-app.md as it is in the file", async () => {
    const doc = await readFile(path.join(root, "docs/github-app.md"), "utf8");
    expect(doc).to.include(text.trim());
  });
});
