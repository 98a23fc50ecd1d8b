import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The checkout holding `moduleUrl`, a file under tools/src/ (run from source) or tools/dist/src/ (run compiled,
 * as `make test` runs it): the two sit at different depths.
 */
export function checkoutRoot(moduleUrl: string): string {
  const file = fileURLToPath(moduleUrl);
  const tools = file.lastIndexOf(`${path.sep}tools${path.sep}`);
  if (tools < 0) throw new Error(`${file} is not under a checkout's tools/`);
  return file.slice(0, tools);
}
