#!/usr/bin/env node
// Generates the TypeScript of the contracts (src/gen) with buf and ts-proto, or,
// with --check, lints the .proto files and verifies that src/gen is exactly what
// generation produces now (the committed code is never stale).
//
//   node scripts/generate.mjs           regenerate src/gen from scratch
//   node scripts/generate.mjs --check   buf lint + freshness check; exit 1 on any difference
/* global process, console */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const protoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Must match `out` in buf.gen.yaml.
const genOut = "src/gen";
const regenerateCommand = "npm run -w @mainline/proto generate";

/** Every node_modules/.bin from proto/ up to the filesystem root, nearest first (as npm does). */
function binDirs() {
  const dirs = [];
  for (let dir = protoDir; ; dir = dirname(dir)) {
    const bin = join(dir, "node_modules", ".bin");
    if (existsSync(bin)) dirs.push(bin);
    if (dirname(dir) === dir) return dirs;
  }
}

const bins = binDirs();
if (!bins.some((dir) => existsSync(join(dir, "protoc-gen-ts_proto")))) {
  fail("protoc-gen-ts_proto not found in any node_modules/.bin above proto/; run `npm ci` first");
}
if (!bins.some((dir) => existsSync(join(dir, "buf")))) {
  fail("buf not found in any node_modules/.bin above proto/ (npm package @bufbuild/buf); run `npm ci` first");
}
// buf.gen.yaml names the plugin `protoc-gen-ts_proto`; buf finds it on PATH.
const env = { ...process.env, PATH: [...bins, process.env.PATH ?? ""].join(delimiter) };

/** @param {string} message @returns {never} */
function fail(message) {
  console.error(`proto: ${message}`);
  process.exit(1);
}

/** @param {string[]} args */
function buf(args) {
  const result = spawnSync("buf", args, { cwd: protoDir, env, encoding: "utf8" });
  if (result.error) fail(`could not run buf: ${result.error.message}`);
  return result;
}

/**
 * Relative paths of all files under root, sorted; empty when root does not exist.
 * @param {string} root
 * @returns {string[]}
 */
function listFiles(root) {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

/** @param {string} outputBase @returns {string} the generated directory */
function generate(outputBase) {
  const target = join(outputBase, genOut);
  // From scratch: a .proto file that was deleted or renamed leaves nothing behind.
  rmSync(target, { recursive: true, force: true });
  const result = buf(["generate", "--output", outputBase]);
  if (result.status !== 0) {
    process.stderr.write(result.stderr);
    fail("buf generate failed (see above)");
  }
  for (const file of listFiles(target)) wordsAsEnumValues(join(target, file));
  return target;
}

/**
 * ts-proto's string enums carry the .proto value names (QUEUE_STATE_RUNNING), prefixed because proto3 enum
 * values share their package's scope; removeEnumPrefix takes the prefix off the member names only. The values
 * are made the member names too (QueueState.RUNNING === "RUNNING"): the words the HTTP API and the domain use,
 * so no layer maps enums by hand. The wire is untouched (encode/decode go through the generated
 * ...ToNumber/...FromJSON functions, which switch on members) and so is the JSON form (toJSON keeps the .proto
 * names).
 * @param {string} path
 */
function wordsAsEnumValues(path) {
  const source = readFileSync(path, "utf8");
  const rewritten = source.replace(/^export enum \w+ \{\n[\s\S]*?^\}$/gm, (block) =>
    block.replace(/^(\s+)([A-Z][A-Z0-9_]*) = "[A-Z][A-Z0-9_]*",$/gm, '$1$2 = "$2",'),
  );
  if (rewritten !== source) writeFileSync(path, rewritten);
}

function check() {
  const lint = buf(["lint"]);
  if (lint.status !== 0) {
    process.stdout.write(lint.stdout);
    process.stderr.write(lint.stderr);
    fail("buf lint failed (see above)");
  }
  const scratch = mkdtempSync(join(tmpdir(), "mainline-proto-"));
  try {
    const fresh = generate(scratch);
    const committed = join(protoDir, genOut);
    const freshFiles = listFiles(fresh);
    const committedFiles = listFiles(committed);
    const committedSet = new Set(committedFiles);
    const freshSet = new Set(freshFiles);
    const stale = [
      ...freshFiles.filter((f) => !committedSet.has(f)).map((f) => `${f} (missing)`),
      ...committedFiles.filter((f) => !freshSet.has(f)).map((f) => `${f} (not generated)`),
      ...freshFiles
        .filter((f) => committedSet.has(f))
        .filter((f) => !readFileSync(join(fresh, f)).equals(readFileSync(join(committed, f))))
        .map((f) => `${f} (differs)`),
    ];
    if (stale.length > 0) {
      fail(`proto/${genOut} is stale, run \`${regenerateCommand}\`: ${stale.join(", ")}`);
    }
    console.log(`proto: buf lint clean; proto/${genOut} up to date (${freshFiles.length} files)`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
if (args.length === 0) {
  const out = generate(protoDir);
  console.log(`proto: generated ${listFiles(out).length} files into proto/${genOut}`);
} else if (args.length === 1 && args[0] === "--check") {
  check();
} else {
  fail(`unknown arguments: ${args.join(" ")} (expected none, or --check)`);
}
