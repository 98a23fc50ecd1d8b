// Builds the web page into web/dist: one hashed JS bundle and one CSS file (each with a gzip copy the gateway
// serves as is), and index.html pointing at them. esbuild, not a dev server: the gateway serves the result.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, "dist");
const assets = path.join(out, "assets");

// dist/types is tsc's (type-check) output; only the page's own files are replaced.
await rm(assets, { recursive: true, force: true });
await mkdir(assets, { recursive: true });
const result = await build({
  entryPoints: [path.join(here, "src/main.tsx")],
  bundle: true,
  // Workspace packages (the contract) resolve to their TypeScript sources, as in tests: no build step first.
  conditions: ["mainline-source"],
  minify: true,
  format: "esm",
  target: ["es2022"],
  jsx: "automatic",
  jsxImportSource: "preact",
  write: false,
  outdir: assets,
  entryNames: "app",
  legalComments: "none",
  logLevel: "warning",
});

const names = {};
for (const file of result.outputFiles) {
  const ext = path.extname(file.path);
  const hash = createHash("sha256").update(file.contents).digest("hex").slice(0, 10);
  const name = `app-${hash}${ext}`;
  await writeFile(path.join(assets, name), file.contents);
  await writeFile(path.join(assets, `${name}.gz`), gzipSync(file.contents, { level: 9 }));
  names[ext] = name;
}
const html = (await readFile(path.join(here, "index.html"), "utf8"))
  .replace("%SCRIPT%", `/assets/${names[".js"]}`)
  .replace("%STYLE%", `/assets/${names[".css"]}`);
await writeFile(path.join(out, "index.html"), html);
const size = (name) =>
  gzipSync(result.outputFiles.find((f) => f.path.endsWith(path.extname(name))).contents).length;
console.log(
  `[web] built web/dist: ${names[".js"]} (${size(names[".js"])} B gz), ${names[".css"]} (${size(names[".css"])} B gz)`,
);
