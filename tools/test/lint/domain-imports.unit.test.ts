import { fileURLToPath } from "node:url";

import { expect } from "chai";
import { ESLint, RuleTester, type Linter, type Rule } from "eslint";
import tseslint from "typescript-eslint";

// The repository's own ESLint config says which rules apply to a file and with what options; RuleTester then runs
// just those rules on snippets. No type-aware lint instance is built (that took ~10 s per run), and the rules
// checked are exactly the configured ones.
const root = fileURLToPath(new URL("../../..", import.meta.url));
const eslint = new ESLint({ cwd: root });

const DOMAIN_FILE = "services/queue-coordinator/src/domain/priority.ts";
const NESTED_DOMAIN_FILE = "services/flaky-analytics/src/domain/quarantine/quarantine.ts";
const SHELL_FILE = "services/queue-coordinator/src/app/outbox.ts";
const RESTRICTED = "@typescript-eslint/no-restricted-imports";
const INWARD = "mainline/domain-imports-inward";

const domainConfig: Linter.Config = await eslint.calculateConfigForFile(DOMAIN_FILE);
const nestedConfig: Linter.Config = await eslint.calculateConfigForFile(NESTED_DOMAIN_FILE);
const shellConfig: Linter.Config = await eslint.calculateConfigForFile(SHELL_FILE);

/** The rule `id` ("plugin/name") as the config for a domain file loads it, and its configured options. */
function configured(id: string): { rule: Rule.RuleModule; options: unknown[] } {
  const slash = id.lastIndexOf("/");
  const plugins = domainConfig.plugins as Record<string, { rules?: Record<string, Rule.RuleModule> }>;
  const rule = plugins[id.slice(0, slash)]?.rules?.[id.slice(slash + 1)];
  const setting = domainConfig.rules?.[id];
  if (!rule || !Array.isArray(setting)) throw new Error(`${id} is not configured for ${DOMAIN_FILE}`);
  return { rule, options: setting.slice(1) };
}

const severity = (config: Linter.Config, id: string) => {
  const setting = config.rules?.[id];
  return Array.isArray(setting) ? setting[0] : setting;
};

const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: "latest", sourceType: "module" },
});
const at = (file: string) => `${root}${file}`;
/** A case named by its code on one line (RuleTester titles a test by its code). */
const named = <T extends { code: string }>(item: T) => ({
  ...item,
  name: item.code.trim().replace(/\n/g, " "),
});

describe("ESLint keeps services/*/src/domain/** free of I/O", () => {
  it("turns both rules on for every file under a service's src/domain/, and for no file of the shell", () => {
    for (const config of [domainConfig, nestedConfig]) {
      expect(severity(config, RESTRICTED)).to.equal(2);
      expect(severity(config, INWARD)).to.equal(2);
    }
    // The shell has its own restricted imports (packages entered through their entry points), never the domain's.
    expect(JSON.stringify(shellConfig.rules?.[RESTRICTED] ?? [])).to.not.include("domain/ is pure");
    expect(JSON.stringify(domainConfig.rules?.[RESTRICTED])).to.include("domain/ is pure");
    expect(severity(shellConfig, INWARD) ?? 0).to.equal(0);
  });

  const restricted = configured(RESTRICTED);
  tester.run(`${RESTRICTED} (a Node module or an I/O package by any name)`, restricted.rule, {
    valid: [
      'import { createHash } from "node:crypto";\nimport { DEFAULT_PRIORITY } from "./priority.js";\n',
      'import { BlockList, isIP } from "node:net";\n',
    ].map((code) => named({ code, options: restricted.options, filename: at(DOMAIN_FILE) })),
    invalid: [
      'import "fs";\n',
      'import { spawn } from "child_process";\nexport { spawn };\n',
      'import { readFile } from "node:fs/promises";\n',
      'import { connect } from "nats";\n',
      'import { openStore } from "@mainline/kit/store/index";\n',
    ].map((code) => named({ code, options: restricted.options, filename: at(DOMAIN_FILE), errors: 1 })),
  });

  const inward = configured(INWARD);
  tester.run(`${INWARD} (any sibling folder of domain/, whatever its name)`, inward.rule, {
    valid: [
      { code: 'import { DEFAULT_PRIORITY } from "./priority.js";\n', filename: at(DOMAIN_FILE) },
      { code: 'export * from "../status/test-status.js";\n', filename: at(NESTED_DOMAIN_FILE) },
      { code: 'import "../git/x";\n', filename: at(SHELL_FILE) },
    ].map(named),
    invalid: [
      { code: 'import "../git/x";\n', filename: at(DOMAIN_FILE), errors: [{ messageId: "outward" }] },
      {
        code: 'export * from "../../jobs/run.js";\n',
        filename: at(NESTED_DOMAIN_FILE),
        errors: [{ messageId: "outward" }],
      },
      { code: 'const m = import("../app/outbox.js");\n', filename: at(DOMAIN_FILE), errors: 1 },
    ].map(named),
  });
});
