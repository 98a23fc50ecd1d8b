import { expect } from "chai";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SERVICE_PERMISSIONS } from "../../src/dev/service-permissions.js";
import {
  FILES_WITH_PERMISSIONS,
  permissionsVariable,
  withPermissionsBlock,
} from "../../src/dev/nats-permissions-config.js";
import { renderChart, repoRoot, runnableServices } from "./deploy-files.js";

// make dev, docker-compose and the chart give each service the same NATS permissions: those of
// tools/src/dev/service-permissions.ts. The deploy files hold a generated copy; this fails when it drifts.

describe("NATS permissions per service: one source for make dev, compose and the chart", () => {
  for (const file of FILES_WITH_PERMISSIONS) {
    it(`${file} holds the permissions of service-permissions.ts (else run make nats-permissions)`, () => {
      const text = readFileSync(join(repoRoot, file), "utf8");
      expect(withPermissionsBlock(text, file) === text, `${file} differs from the module`).to.equal(true);
    });
  }

  it("defines permissions for every service the deploy files run", () => {
    expect(Object.keys(SERVICE_PERMISSIONS)).to.have.members(runnableServices());
  });

  it("gives each service its own permissions in compose's nats.conf", () => {
    const conf = readFileSync(join(repoRoot, "deploy/docker/nats.conf"), "utf8");
    for (const name of runnableServices())
      expect(conf, name).to.match(
        new RegExp(`user: "${name}",.*permissions: \\$${permissionsVariable(name)} }`),
      );
  });

  it("gives each component its own permissions in the chart's rendered NATS authorization", () => {
    const secret = renderChart("ci/default-values.yaml").find((m) => m.kind === "Secret")!;
    const conf = Buffer.from(
      (secret.data as Record<string, string>)["nats-authorization.conf"]!,
      "base64",
    ).toString();
    for (const name of runnableServices())
      expect(conf, name).to.match(
        new RegExp(`user: "${name}",.*permissions: \\$${permissionsVariable(name)} }`),
      );
  });
});
