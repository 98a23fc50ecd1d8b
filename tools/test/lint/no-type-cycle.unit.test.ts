import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RuleTester, type Rule } from "eslint";
import tseslint from "typescript-eslint";
// @ts-expect-error: the rules are plain JavaScript that ESLint's config loads as it is; they have no declarations.
import { noTypeCycle } from "../../eslint-rules/no-type-cycle.js";
// @ts-expect-error: as above.
import { createMainlineResolver } from "../../eslint-rules/module-imports.js";

type Resolve = (specifier: string, file: string) => unknown;
const resolver = (createMainlineResolver as () => { resolve: Resolve })();
const rule = (noTypeCycle as (resolve: Resolve) => Rule.RuleModule)((specifier, file) =>
  resolver.resolve(specifier, file),
);

// Real files, since the rule follows imports on disk: settings.ts and state.ts are the queue-settings ↔
// queue-state circle the coordinator's domain had (each needed a type of the other).
const dir = mkdtempSync(path.join(tmpdir(), "mainline-type-cycle-"));
const files = {
  "settings.ts": 'import type { State } from "./state.js";\nexport type Settings = { state?: State };\n',
  "state.ts":
    'import type { Settings } from "./settings.js";\nexport type State = { settings?: Settings };\n',
  "leaf.ts": "export type Leaf = string;\n",
  "user.ts": 'import type { Leaf } from "./leaf.js";\nexport type User = Leaf;\n',
};
for (const [name, code] of Object.entries(files)) writeFileSync(path.join(dir, name), code);
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

describe("ESLint: no dependency cycle closed by a type-only import", () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  tester.run("mainline-cycles/no-type-cycle", rule, {
    valid: [
      { filename: path.join(dir, "user.ts"), code: files["user.ts"] },
      // A value import is import-x/no-cycle's to judge; this rule reports the type import that closes the circle.
      { filename: path.join(dir, "state.ts"), code: 'import { Settings } from "./settings.js";\n' },
    ],
    invalid: [
      {
        filename: path.join(dir, "settings.ts"),
        code: files["settings.ts"],
        errors: [{ messageId: "typeCycle" }],
      },
      {
        filename: path.join(dir, "state.ts"),
        code: 'import { type Settings } from "./settings.js";\nexport type { Settings };\n',
        errors: [{ message: /closes a dependency cycle \(.*state\.ts → .*settings\.ts → .*state\.ts\)/ }],
      },
    ],
  });
});
