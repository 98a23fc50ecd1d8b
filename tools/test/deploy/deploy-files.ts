import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";

/** Shared by the deploy tests: where the deploy files are, and how to run the packaged helm binary. */
export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
export const chartDir = join(repoRoot, "deploy", "helm", "mainline");
export const helmScript = join(repoRoot, "tools", "scripts", "helm.sh");

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const readText = (path: string) => readFileSync(join(repoRoot, path), "utf8");

export function readYaml<T = JsonObject>(path: string): T {
  return parse(readText(path), { merge: true }) as T;
}

/** The chart's ci/*.yaml values files, relative to the chart. */
export function ciValuesFiles(): string[] {
  return readdirSync(join(chartDir, "ci"))
    .filter((name) => name.endsWith(".yaml"))
    .sort()
    .map((name) => `ci/${name}`);
}

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs tools/scripts/helm.sh (which unpacks the binary from node_modules on first use) in the chart folder. */
export function helm(...args: string[]): HelmResult {
  const result = spawnSync("bash", [helmScript, ...args], {
    cwd: chartDir,
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** `helm template` of the chart with a values file (relative to the chart) and --set pairs. */
export function renderChart(valuesFile?: string, ...sets: string[]): Manifest[] {
  const args = ["template", "ci-release", "."];
  if (valuesFile) args.push("-f", valuesFile);
  for (const set of sets) args.push("--set", set);
  const result = helm(...args);
  if (result.status !== 0) throw new Error(`helm ${args.join(" ")} failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/** Parses a multi-document YAML stream; every document must parse cleanly. */
export function parseManifests(text: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    manifests.push(value as Manifest);
  }
  return manifests;
}

/**
 * Helm's coalescing of user values over chart defaults: maps merge deeply, anything else replaces, and a
 * null deletes the default.
 */
export function coalesceValues(defaults: Json, overrides: Json): Json {
  if (!isObject(defaults) || !isObject(overrides)) return overrides;
  const out: JsonObject = { ...defaults };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) delete out[key];
    else out[key] = key in defaults ? coalesceValues(defaults[key] ?? null, value) : value;
  }
  return out;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The environment variables a service's zod config schema reads, from services/<name>/src/config.ts
 * (plus the shared ones of services/kit when it spreads commonConfig).
 */
export function serviceConfigVariables(service: string): Set<string> {
  const names = new Set<string>();
  const source = readText(`services/${service}/src/config.ts`);
  for (const match of source.matchAll(/^\s*([A-Z][A-Z0-9_]*):/gm)) names.add(match[1]!);
  if (source.includes("...commonConfig")) {
    const fields = readText("services/kit/src/config/fields.ts");
    const block = /export const commonConfig = \{([\s\S]*?)\n\};/.exec(fields)?.[1] ?? "";
    for (const match of block.matchAll(/^\s*([A-Z][A-Z0-9_]*):/gm)) names.add(match[1]!);
  }
  if (source.includes("...gitHubAppConfig")) {
    const fields = readText("services/kit/src/github/github-app-config.ts");
    const block = /export const gitHubAppConfig = \{([\s\S]*?)\n\};/.exec(fields)?.[1] ?? "";
    for (const match of block.matchAll(/^\s*([A-Z][A-Z0-9_]*):/gm)) names.add(match[1]!);
  }
  return names;
}

/** The services the image can run: every folder under services/ with a src/main.ts. */
export function runnableServices(): string[] {
  return readdirSync(join(repoRoot, "services"))
    .filter((name) => existsSync(join(repoRoot, "services", name, "src", "main.ts")))
    .sort();
}
