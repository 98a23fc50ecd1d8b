import { expect } from "chai";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ciValuesFiles, readText, repoRoot } from "./deploy-files.js";

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

  // What real helm says of the chart is tools/test/deploy/helm-chart.test.ts's part (lint and render with the
  // chart's own values and each ci/*.yaml); running helm again here doubled that work. This checks the script's
  // own logic with a stand-in helm that logs its arguments and fails for one values file.
  describe("make helm-check", () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "mainline-helm-check-"));
      await writeFile(
        join(dir, "helm"),
        `#!/bin/sh\necho "$*" >> "${dir}/calls"\ncase "$*" in *"$FAIL_FOR"*) echo "lint: broken values" >&2; exit 1;; esac\n`,
      );
      await chmod(join(dir, "helm"), 0o755);
    });
    after(() => rm(dir, { recursive: true, force: true }));

    const helmCheck = (failFor: string) => {
      const ran = spawnSync("tools/scripts/helm-check.sh", {
        cwd: repoRoot,
        encoding: "utf8",
        env: { ...process.env, HELM: join(dir, "helm"), FAIL_FOR: failFor },
      });
      return { ...ran, calls: readFile(join(dir, "calls"), "utf8").finally(() => rm(join(dir, "calls"))) };
    };

    it("lints (--strict) and renders the chart with its own values and with every ci/*.yaml", async () => {
      const ran = helmCheck("no such argument");
      expect(ran.status, ran.stderr).to.equal(0);
      const calls = (await ran.calls).trim().split("\n");
      const files = ciValuesFiles().map((file) => `deploy/helm/mainline/${file}`);
      expect(files).to.have.length.greaterThan(0);
      expect(calls).to.deep.equal([
        "lint --strict deploy/helm/mainline",
        "template helm-check deploy/helm/mainline",
        ...files.flatMap((file) => [
          `lint --strict deploy/helm/mainline -f ${file}`,
          `template helm-check deploy/helm/mainline -f ${file}`,
        ]),
      ]);
      expect(ran.stdout).to.include("helm-check: the chart's own values: lint and template OK");
      for (const file of files) expect(ran.stdout).to.include(`helm-check: ${file}: lint and template OK`);
    });

    it("fails, naming the values file and helm's complaint, when one of them fails and still checks the rest", async () => {
      const ran = helmCheck("ci/external-secrets-values.yaml");
      expect(ran.status).to.equal(1);
      expect(ran.stderr).to.include(
        "helm-check: lint failed for deploy/helm/mainline/ci/external-secrets-values.yaml",
      );
      expect(ran.stderr).to.include("lint: broken values");
      expect(ran.stdout).to.include(
        "helm-check: deploy/helm/mainline/ci/full-values.yaml: lint and template OK",
      );
      await ran.calls;
    });

    it("is what `make helm-check` runs", () => {
      expect(readText("Makefile")).to.match(/^helm-check: deps\n\t@tools\/scripts\/helm-check\.sh$/m);
    });
  });
});
