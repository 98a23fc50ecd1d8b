import path from "node:path";

import js from "@eslint/js";
import { importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";
import {
  domainLoadsNoIo,
  IO_PACKAGE_PATTERN,
  NODE_BARE_IO_PATTERN,
  NODE_IO_PATTERN,
} from "./tools/eslint-rules/domain-loads-no-io.js";
import { createMainlineResolver } from "./tools/eslint-rules/module-imports.js";
import { noTypeCycle } from "./tools/eslint-rules/no-type-cycle.js";

import { vocabularyInContract } from "./contract/lint/vocabulary-in-contract.mjs";

const resolver = createMainlineResolver();

/**
 * Packages are entered through their entry points only: kit through a module's `index`, a service through its root
 * or an entry point named for what it offers, never a path that climbs out of one package into another's files.
 */
const ENTRY_POINTS_ONLY = [
  {
    regex: "^@mainline/kit(/[^/]+/(?!index$)[^/]+.*)?$",
    message: "enter kit through a module's entry point: @mainline/kit/<module>/index",
  },
  {
    // The planner (pure domain) for the simulator and the benches. The request schemas are the contract's, the
    // JUnit parser is @mainline/junit and the test harnesses are @mainline/harness's: no testing/ path here.
    regex:
      "^@mainline/(gateway|queue-coordinator|batch-runner|flaky-analytics|metrics|webhooks)/(?!(domain/index|api/command-parser|upstream/submitted-pull-request-lookups|github/github-webhook-handler)$)",
    message: "enter a service package through its root or a declared entry point, not a file inside it",
  },
  {
    regex:
      "^(\\.\\./)+((services/)?(kit|gateway|queue-coordinator|batch-runner|flaky-analytics|metrics|webhooks)|proto|web|testing|harness|tools|sim|cli)/src/",
    message: "a relative path never reaches into another package: import its entry point by name",
  },
];

/**
 * Imports point inward: a file under a service's src/domain/ may import other domain code relatively, never a
 * sibling folder of domain/ (app/, store/, bus/, api/, github/, git/, jobs/, ...), whatever its name.
 */
const domainImportsInward = {
  meta: {
    type: "problem",
    schema: [],
    messages: {
      outward: "imports point inward: domain/ never reaches the shell around it ({{target}})",
    },
  },
  create(context) {
    const file = context.filename.split(path.sep).join("/");
    const root = /^(.*\/src\/domain)(\/|$)/.exec(file)?.[1];
    if (root === undefined) return {};
    const check = (source) => {
      if (source?.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith("."))
        return;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), source.value));
      if (target === root || target.startsWith(`${root}/`)) return;
      context.report({
        node: source,
        messageId: "outward",
        data: { target: path.posix.relative(path.posix.dirname(root), target) },
      });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      // tsc output written next to sources by a stray compile; never ours to lint (and git ignores it).
      "**/*.d.ts",
      "services/**/src/**/*.js",
      "services/**/test/**/*.js",
      "proto/src/gen/**",
      ".data/**",
      "**/*.cjs",
      "eslint.config.js",
      // The bundled CLI that `npm pack` (tools/test/deploy/cli-package.test.ts) writes; git ignores it too.
      "tools/cli-package/mainline.mjs",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: ENTRY_POINTS_ONLY }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/only-throw-error": "error",
    },
  },
  {
    // Rooms and doors: no two modules import each other, even through a chain (through another package's entry
    // point too). import-x leaves type-only imports out (they are erased); no-type-cycle catches the cycles they close.
    plugins: {
      "import-x": importX,
      "mainline-cycles": {
        rules: { "no-type-cycle": noTypeCycle((specifier, file) => resolver.resolve(specifier, file)) },
      },
    },
    settings: {
      "import-x/extensions": [".ts", ".tsx", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [resolver],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "mainline-cycles/no-type-cycle": "error",
      // One concept per file: every line counts (blank and comment lines too), as `wc -l` counts them.
      "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // Plain JS that node runs as it is (the build scripts of the web page and the CLI bundle, the lint rules); no
    // tsconfig holds it.
    files: ["web/build.mjs", "tools/scripts/build-cli.mjs", "tools/eslint-rules/*.js", "contract/lint/*.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { console: "readonly", process: "readonly", URL: "readonly" },
    },
  },
  {
    // DESIGN "Layout": domain/ is pure logic and types; I/O lives in the shell around it (app/, store/, bus/, api/).
    files: ["services/*/src/domain/**/*.ts"],
    plugins: {
      mainline: {
        rules: {
          "domain-imports-inward": domainImportsInward,
          "domain-loads-no-io": domainLoadsNoIo((specifier, file) => resolver.resolve(specifier, file)),
        },
      },
    },
    rules: {
      "mainline/domain-imports-inward": "error",
      "mainline/domain-loads-no-io": "error",
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            // Address arithmetic only (BlockList matches addresses against ranges; it opens no socket).
            ...["node:net", "net"].map((name) => ({
              name,
              allowImportNames: ["BlockList", "isIP", "isIPv4", "isIPv6"],
            })),
          ],
          patterns: [
            ...ENTRY_POINTS_ONLY,
            {
              // Hashing (node:crypto) and address arithmetic (node:net, above) are computation, not I/O.
              regex: NODE_IO_PATTERN,
              message: "domain/ is pure: no Node I/O; it belongs in app/, store/, bus/ or api/",
            },
            {
              // The same modules by their bare names (`fs`, `child_process`, `http`, `fs/promises`).
              regex: NODE_BARE_IO_PATTERN,
              message: "domain/ is pure: no Node I/O; it belongs in app/, store/, bus/ or api/",
            },
            {
              regex: IO_PACKAGE_PATTERN,
              message: "domain/ is pure: I/O belongs in app/, store/, bus/ or api/",
            },
            {
              regex: "^@mainline/kit/(bus|store|grpc|service|streams|telemetry|logging|config)(/|$)",
              message: "domain/ is pure: the kit's I/O modules belong in app/, store/, bus/ or api/",
            },
          ],
        },
      ],
    },
  },
  {
    // One fact, one shape: the vocabulary (each word with its codecs) is defined in the contract package only.
    files: [
      "services/*/src/**/*.ts",
      "tools/src/**/*.ts",
      "tools/sim/src/**/*.ts",
      "tools/cli/src/**/*.ts",
      "web/src/**/*.{ts,tsx}",
    ],
    plugins: { contract: { rules: { "vocabulary-in-contract": vocabularyInContract } } },
    rules: { "contract/vocabulary-in-contract": "error" },
  },
  {
    // The CLI talks to Mainline over HTTP: it knows the contract (and reads JUnit reports with the service's own
    // parser), never a service, kit or proto. `mainline simulate` reaches the real planner through @mainline/sim.
    files: ["tools/cli/src/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            ...ENTRY_POINTS_ONLY,
            {
              regex: "^@mainline/(?!(contract|junit|sim)$)",
              message:
                "the CLI imports @mainline/contract, @mainline/junit and @mainline/sim only; services are behind the HTTP API",
            },
          ],
        },
      ],
    },
  },
  {
    // chai's property assertions (expect(x).to.be.true) read as unused expressions.
    files: ["**/test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-expressions": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
    },
  },
);
