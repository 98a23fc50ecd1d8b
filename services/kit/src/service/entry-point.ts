import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * Whether the module at `moduleUrl` is the file node was asked to run. Every service wires itself in its
 * src/main.ts, which tests and tools import for the wiring; only `node …/main.ts` (or main.js) starts it.
 */
export function isEntryPoint(moduleUrl: string): boolean {
  const started = process.argv[1];
  if (started === undefined) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
