import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readText, repoRoot } from "./deploy-files.js";

const DOCS = [
  "README.md",
  "deploy/helm/mainline/README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The Makefile's targets, from its rule lines (`name: prerequisites`). */
function makeTargets(): Set<string> {
  return new Set([...readText("Makefile").matchAll(/^([a-z][a-z0-9-]*):(?!=)/gm)].map((match) => match[1]!));
}

describe("make targets the docs name", () => {
  it("exist in the Makefile for every `make <target>` the READMEs and docs/ mention", () => {
    const targets = makeTargets();
    for (const doc of DOCS) {
      for (const [, target] of readText(doc).matchAll(/`make ([a-z][a-z0-9-]*)`/g)) {
        expect(targets.has(target!), `${doc} names \`make ${target}\``).to.equal(true);
      }
    }
  });

  it("make helm-check lints and renders the chart for its own values and every ci/*.yaml", function () {
    this.timeout(120_000);
    // The script directly: `make` would first run the deps step, which may install Debian packages.
    const ran = spawnSync("tools/scripts/helm-check.sh", { cwd: repoRoot, encoding: "utf8" });
    expect(ran.status, ran.stderr).to.equal(0);
    expect(ran.stdout).to.include("helm-check: the chart's own values: lint and template OK");
    for (const file of ["default-values", "external-secrets-values", "full-values"]) {
      expect(ran.stdout).to.include(`helm-check: deploy/helm/mainline/ci/${file}.yaml: lint and template OK`);
    }
    expect(readText("Makefile")).to.match(/^helm-check: deps\n\t@tools\/scripts\/helm-check\.sh$/m);
  });
});
