import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { SERVICE_PERMISSIONS } from "./service-permissions.js";

/**
 * The per-service permissions of service-permissions.ts in nats-server's config syntax, as variables
 * (`MAINLINE_QUEUE_COORDINATOR = {...}`) that a user entry names (`permissions: $MAINLINE_QUEUE_COORDINATOR`).
 * docker-compose's nats.conf and the Helm chart's template hold this block between the markers below;
 * `make nats-permissions` (re)writes it there, and tests fail when a file and the module differ.
 */
export const BEGIN_MARKER = "# BEGIN NATS permissions, generated from tools/src/dev/service-permissions.ts";
export const END_MARKER = "# END NATS permissions";

/** The files that embed the block, from the repository's root. */
export const FILES_WITH_PERMISSIONS = [
  "deploy/docker/nats.conf",
  "deploy/helm/mainline/templates/_helpers.tpl",
];

/** `queue-coordinator` -> `MAINLINE_QUEUE_COORDINATOR`: the variable a user entry refers to. */
export function permissionsVariable(service: string): string {
  return `MAINLINE_${service.toUpperCase().replace(/-/g, "_")}`;
}

const list = (subjects: readonly string[]) =>
  `[\n${subjects.map((s) => `      ${JSON.stringify(s)}`).join("\n")}\n    ]`;

export function renderPermissionsBlock(): string {
  const variables = Object.entries(SERVICE_PERMISSIONS).map(
    ([service, p]) =>
      `${permissionsVariable(service)} = {\n` +
      `  publish: {\n    allow: ${list(p.publish.allow)}\n  }\n` +
      `  subscribe: {\n    allow: ${list(p.subscribe.allow)}\n  }\n}`,
  );
  return `${BEGIN_MARKER}\n${variables.join("\n")}\n${END_MARKER}`;
}

/** The file's text with its generated block replaced by the current one. */
export function withPermissionsBlock(text: string, file: string): string {
  const begin = text.indexOf(BEGIN_MARKER);
  const end = text.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`${file}: no "${BEGIN_MARKER}" ... "${END_MARKER}" block`);
  return text.slice(0, begin) + renderPermissionsBlock() + text.slice(end + END_MARKER.length);
}

/** Rewrites the block in every file that embeds it; returns the files that changed. */
export async function writePermissionsBlocks(root: string): Promise<string[]> {
  const changed: string[] = [];
  for (const file of FILES_WITH_PERMISSIONS) {
    const text = await readFile(path.join(root, file), "utf8");
    const updated = withPermissionsBlock(text, file);
    if (updated === text) continue;
    await writeFile(path.join(root, file), updated);
    changed.push(file);
  }
  return changed;
}
