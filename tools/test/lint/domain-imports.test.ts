import { fileURLToPath } from "node:url";

import { expect } from "chai";
import { ESLint } from "eslint";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** Lints `code` as if it were the text of an existing file (the type-aware rules need a file of a project). */
async function ruleIdsFor(code: string, filePath: string): Promise<(string | null)[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: `${root}/${filePath}` });
  return result!.messages.map((m) => m.ruleId);
}

const DOMAIN_FILE = "services/queue-coordinator/src/domain/priority.ts";

describe("ESLint keeps services/*/src/domain/** free of I/O", function () {
  this.timeout(120_000);

  it("refuses a Node module by its bare name", async () => {
    expect(await ruleIdsFor('import "fs";\n', DOMAIN_FILE)).to.include(
      "@typescript-eslint/no-restricted-imports",
    );
    expect(
      await ruleIdsFor('import { spawn } from "child_process";\nexport { spawn };\n', DOMAIN_FILE),
    ).to.include("@typescript-eslint/no-restricted-imports");
  });

  it("refuses any sibling folder of domain/, whatever its name", async () => {
    expect(await ruleIdsFor('import "../git/x";\n', DOMAIN_FILE)).to.include(
      "mainline/domain-imports-inward",
    );
    const nested = "services/flaky-analytics/src/domain/quarantine/quarantine.ts";
    expect(await ruleIdsFor('export * from "../../jobs/run.js";\n', nested)).to.include(
      "mainline/domain-imports-inward",
    );
    expect(await ruleIdsFor('export * from "../status/test-status.js";\n', nested)).to.not.include(
      "mainline/domain-imports-inward",
    );
  });

  it("lets domain code import domain code and computation", async () => {
    const ids = await ruleIdsFor(
      'import { createHash } from "node:crypto";\nimport { DEFAULT_PRIORITY } from "./priority.js";\nexport const x = [createHash, DEFAULT_PRIORITY];\n',
      "services/queue-coordinator/src/domain/planner.ts",
    );
    expect(ids).to.deep.equal([]);
  });

  it("leaves the shell's imports alone", async () => {
    const ids = await ruleIdsFor(
      'import "fs";\nimport "../git/x";\n',
      "services/queue-coordinator/src/app/outbox.ts",
    );
    expect(ids).to.not.include("mainline/domain-imports-inward");
    expect(ids).to.not.include("@typescript-eslint/no-restricted-imports");
  });
});
