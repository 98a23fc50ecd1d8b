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

  it("is shown in the README as it is in the file", async () => {
    const readme = await readFile(path.join(root, "README.md"), "utf8");
    expect(readme).to.include(text.trim());
  });
});
