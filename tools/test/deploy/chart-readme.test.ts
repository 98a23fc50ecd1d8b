import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { MainlineFixture } from "../cli/mainline-fixture.js";
import { readText, readYaml, type JsonObject } from "./deploy-files.js";

const README = "deploy/helm/mainline/README.md";

/** Every value a user sets for production is in the chart's README, and its metrics recipe runs as written. */
describe("the Helm chart's README", function () {
  this.timeout(60_000);
  const readme = readText(README);

  it("documents every value of auth, github and ingress", () => {
    const values = readYaml<JsonObject>("deploy/helm/mainline/values.yaml");
    for (const section of ["auth", "github", "ingress"]) {
      for (const key of Object.keys(values[section] as JsonObject)) {
        const documented = readme.includes(`\`${section}.${key}\``) || readme.includes(`.${key}\``);
        expect(documented, `${section}.${key} in ${README}`).to.equal(true);
      }
    }
    expect(readme).to.include("## Public HTTPS: Ingress and TLS");
  });

  describe("the metrics recipe, run against the real services", () => {
    let dir: string;
    let system: MainlineFixture;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "mainline-chart-readme-"));
      system = await MainlineFixture.start(dir);
    });
    after(async () => {
      await system?.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it("creates the organisation it mints the Prometheus token for, and the gateway takes the token", async () => {
      const section = readme.slice(readme.indexOf("## Metrics scraping"));
      const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
      // The recipe's mainline commands, for a fresh organisation: the bootstrap token's is `dev`, not this one.
      const commands = block
        .split("\n")
        .map((line) => line.replace(/#.*$/, "").trim())
        .filter((line) => line.startsWith("mainline "))
        .map((line) => line.replaceAll("acme", "scraped").replace(/^mainline /, ""));
      expect(commands, block).to.not.deep.equal([]);
      let token = "";
      for (const command of commands) {
        const argv = [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
        const run = await system.run(argv, { env: system.env({ MAINLINE_TOKEN: system.adminToken }) });
        expect(run.code, `mainline ${command}: ${run.stderr}`).to.equal(0);
        token = /mlt_[A-Za-z0-9_-]+/.exec(run.stdout)?.[0] ?? token;
      }
      expect(token, "the recipe printed a token").to.match(/^mlt_/);
      const scraped = await fetch(`${system.gateway.url}/getMergeQueueMetrics`, {
        headers: { authorization: `Bearer ${token}` },
      });
      // Authenticated (this fixture runs no metrics service, so the answer itself is 503, not 401 or 403).
      expect(scraped.status).to.not.be.oneOf([401, 403]);
    });
  });
});
