import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { FAMILIES } from "../src/domain/catalogue.js";
import { configSchema } from "../src/config.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, "utf8");

interface Container {
  env?: { name: string; value?: string }[];
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  spec?: {
    replicas?: number;
    strategy?: { type?: string };
    template?: { spec: { containers: Container[] } };
  };
}

describe("metrics service wiring: dashboard, Helm chart, compose", function () {
  this.timeout(60_000);

  it("charts every family of the metrics service on the Grafana dashboard", () => {
    const dashboard = JSON.parse(read("deploy/grafana/mainline-dashboard.json")) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => p.targets ?? []).map((t) => t.expr);
    for (const { name } of Object.values(FAMILIES)) {
      expect(
        exprs.some((e) => new RegExp(`\\b${name}(_bucket)?\\{`).test(e)),
        name,
      ).to.equal(true);
    }
  });

  it("gives the metrics Deployment the coordinator's address, as two replicas rolled one by one", () => {
    const result = spawnSync(
      "bash",
      [`${root}tools/scripts/helm.sh`, "template", "t", "deploy/helm/mainline"],
      {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    expect(result.status, result.stderr).to.equal(0);
    const manifests = parseAllDocuments(result.stdout).map((doc) => doc.toJS() as Manifest);
    const deployment = manifests.find(
      (m) => m?.kind === "Deployment" && m.metadata.name === "t-mainline-metrics",
    );
    const service = manifests.find(
      (m) => m?.kind === "Service" && m.metadata.name === "t-mainline-queue-coordinator",
    );
    expect(service, "the coordinator's Service").to.not.equal(undefined);
    const env = deployment?.spec?.template?.spec.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === "QUEUE_COORDINATOR_ADDR")?.value).to.equal(
      "t-mainline-queue-coordinator:50051",
    );
    // Replicas share their totals through the store (issue 25), so the chart runs two and rolls them.
    expect(deployment?.spec?.strategy?.type).to.not.equal("Recreate");
    expect(deployment?.spec?.replicas).to.equal(2);
  });

  it("passes the coordinator's address in docker-compose.yml, in a form the config accepts", () => {
    const compose = parse(read("docker-compose.yml"), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const environment = compose.services.metrics?.environment ?? {};
    expect(environment.QUEUE_COORDINATOR_ADDR).to.equal("queue-coordinator:50051");
    expect(
      configSchema.shape.QUEUE_COORDINATOR_ADDR.safeParse(environment.QUEUE_COORDINATOR_ADDR).success,
    ).to.equal(true);
  });
});
