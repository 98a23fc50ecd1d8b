import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { glob } from "tinyglobby";

export interface JunitFile {
  path: string;
  content: string;
}

/**
 * The JUnit XML files the globs match under `cwd`, sorted by path. With `modifiedSince`, files older than
 * that are left out: a report left over from an earlier run must not speak for this one.
 */
export async function readJunitFiles(
  cwd: string,
  globs: readonly string[],
  modifiedSince?: number,
): Promise<JunitFile[]> {
  if (globs.length === 0) return [];
  const paths = (await glob([...globs], { cwd, onlyFiles: true, dot: true, absolute: false })).sort();
  const files: JunitFile[] = [];
  for (const relative of paths) {
    const full = path.resolve(cwd, relative);
    // File systems keep mtimes in whole seconds at worst; a second of slack keeps a fresh report.
    if (modifiedSince !== undefined && (await stat(full)).mtimeMs < modifiedSince - 1000) continue;
    files.push({ path: relative, content: await readFile(full, "utf8") });
  }
  return files;
}
