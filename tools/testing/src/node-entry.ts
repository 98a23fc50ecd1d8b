import { existsSync } from "node:fs";
import path from "node:path";

/**
 * Set (to "1") by `make test` once `tsc -b` has built every package's dist/ for this checkout: a process started
 * from a workspace entry point then runs its compiled JavaScript. Through tsx every process compiles the sources
 * it loads on its own (about 0.7 s of CPU per service start, a whole system ten seconds), and the suite starts
 * hundreds of them on two cores.
 */
export const RUN_COMPILED_ENV = "MAINLINE_RUN_COMPILED";

/**
 * The node arguments that run a workspace TypeScript entry point (`<package>/src/<path>.ts`) in a process of its
 * own (a relative `entry` from `cwd`): its tsc output (`<package>/dist/src/<path>.js`) under RUN_COMPILED_ENV, else the source through tsx.
 */
export function nodeEntryArgs(entry: string, cwd = process.cwd()): string[] {
  if (process.env[RUN_COMPILED_ENV] !== "1")
    return ["--conditions=mainline-source", "--import", "tsx", entry];
  const at = entry.lastIndexOf("/src/");
  if (at < 0 || !entry.endsWith(".ts")) throw new Error(`${entry} is not a package's src/**.ts entry point`);
  const compiled = `${entry.slice(0, at)}/dist${entry.slice(at, -".ts".length)}.js`;
  // Set only after a successful `tsc -b`: a missing output is a build that did not happen, never a reason to
  // run something older or else.
  if (!existsSync(path.resolve(cwd, compiled)))
    throw new Error(`${RUN_COMPILED_ENV}=1 but ${compiled} was not built (run npx tsc -b)`);
  return [compiled];
}
