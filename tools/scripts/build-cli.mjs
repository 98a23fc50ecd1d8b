#!/usr/bin/env node
// Bundles the `mainline` CLI (tools/cli, @mainline/cli-src) into one file with its dependencies, for the npm package
// tools/cli-package (@mainline/cli) and the image (/usr/local/bin/mainline): node 20 is all it needs, no
// checkout, no tsx. The workspace packages it imports resolve to their sources (the mainline-source condition).
//
//   node tools/scripts/build-cli.mjs [outfile]     default: tools/cli-package/mainline.mjs
import { build } from "esbuild";
import { chmod } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const outfile = path.resolve(process.argv[2] ?? path.join(root, "tools/cli-package/mainline.mjs"));
await build({
  entryPoints: [path.join(root, "tools/cli/src/main.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  conditions: ["mainline-source"],
  outfile,
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire as __mainlineRequire } from "node:module";\nconst require = __mainlineRequire(import.meta.url);',
  },
  legalComments: "none",
  logLevel: "warning",
});
await chmod(outfile, 0o755);
